import ArgumentParser
import Courier
import CourierTestServer
import Foundation

/// `courier tour`: starts the embedded test server (plain and TLS) on ephemeral loopback ports and
/// walks through Courier's capabilities with real traffic. Exits 0 only when every step behaved as
/// expected; otherwise 4, naming how many steps failed.
struct TourCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "A guided tour of Courier against its embedded test server on 127.0.0.1."
    )

    func run() async throws {
        let plain = try await TestServer.start()
        let secure: TestServer
        do {
            secure = try await TestServer.start(tls: true)
        } catch {
            try? await plain.shutdown()
            throw error
        }
        let tour = Tour(servers: TourServers(plain: plain, secure: secure))
        try StandardStreams.write("Courier tour against the embedded test server at \(plain.baseURL.absoluteString) (TLS: \(secure.baseURL.absoluteString))\n\n")
        let outcome = await tour.runAll()
        await tour.shutdown()
        try? await secure.shutdown()
        try? await plain.shutdown()
        try StandardStreams.write("\n")
        let seconds = String(format: "%.1f s", outcome.elapsed.seconds)
        guard outcome.failures == 0 else {
            throw CLIFailure(status: .network, message: "\(outcome.failures) of \(outcome.steps) tour steps failed (\(seconds))")
        }
        try StandardStreams.write("All \(outcome.steps) steps behaved as expected in \(seconds).\n")
    }
}
