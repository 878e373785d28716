import ArgumentParser
import CourierTestServer

/// `courier serve`: runs the httpbin-compatible test server in the foreground.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run Courier's httpbin-compatible test server on 127.0.0.1 until interrupted."
    )

    @Option(name: .customLong("port"), parsing: .unconditional, help: ArgumentHelp("The port, 0 to 65535; 0 picks a free one.", valueName: "port"))
    var portGiven: OptionNumber = 8080

    @Flag(help: "Serve HTTPS with a certificate generated at start-up.")
    var tls = false

    func run() async throws {
        let port = try NumericOption.port.count(portGiven)
        try await TestServer.run(host: "127.0.0.1", port: port, tls: tls)
    }
}
