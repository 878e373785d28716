import ArgumentParser
import CourierTestServer

/// `courier serve`: runs the httpbin-compatible test server in the foreground.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run Courier's httpbin-compatible test server on 127.0.0.1 until interrupted."
    )

    @Option(help: "The port; 0 picks a free one.")
    var port: Int = 8080

    @Flag(help: "Serve HTTPS with a certificate generated at start-up.")
    var tls = false

    func run() async throws {
        try await TestServer.run(host: "127.0.0.1", port: port, tls: tls)
    }
}
