import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP over a Unix domain socket, against nginx listening on one (`COURIER_NGINX_SOCKET`, plain HTTP, the same
/// files): `http+unix://` URLs, the session's socket setting, the CLI's `--unix-socket`, and bad socket paths.
@Suite("Unix domain sockets: nginx", .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() })
struct UnixSocketInteropTests {
    static func socketPath() throws -> String {
        try #require(NginxServer.environment["COURIER_NGINX_SOCKET"])
    }

    /// `http+unix://<percent-encoded socket path>/path`, AsyncHTTPClient's form.
    static func unixURL(_ path: String, probe: String) throws -> URL {
        let socket = try socketPath()
        let encoded = try #require(socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        return try #require(URL(string: "http+unix://\(encoded)/\(path)?probe=\(probe)"))
    }

    @Test func httpPlusUnixURLThroughASession() async throws {
        let probe = NginxInterop.probe()
        let session = try NginxInterop.sessionManager()
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, response) = try await session.data(for: URLRequest(url: try Self.unixURL("hello.txt", probe: probe)))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "Hello from nginx\n")
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.protocolVersion == "HTTP/1.1")
        #expect(line.status == 200, "\(line)")
    }

    @Test func sessionSocketSettingCarriesEveryRequest() async throws {
        let probe = NginxInterop.probe()
        var configuration = SessionConfiguration.ephemeral
        configuration.unixSocketPath = try Self.socketPath()
        // A proxy is never used with a socket.
        configuration.proxy = .all(ProxyServer(kind: .http, host: "127.0.0.1", port: 9))
        let session = URLSessionManager(configuration: configuration)
        session.completionQueue = SessionFixtures.completionQueue
        defer { session.invalidateSessionCancelingTasks(true) }
        let url = try #require(URL(string: "http://localhost/bytes-1m.bin?probe=\(probe)"))
        let (data, response) = try await session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        #expect(data == (try Data(contentsOf: try NginxInterop.servedFile("bytes-1m.bin"))))
        #expect(try await NginxInterop.accessLog(probe: probe, count: 1).count == 1)

        let secure = try #require(URL(string: "https://localhost/hello.txt"))
        await #expect {
            _ = try await session.data(for: URLRequest(url: secure))
        } throws: { error in
            (error as? URLError)?.code == .unsupportedURL
        }
    }

    @Test func operationOverHTTPPlusUnix() async throws {
        let probe = NginxInterop.probe()
        let operation = HTTPRequestOperation(request: URLRequest(url: try Self.unixURL("hello.txt", probe: probe)))
        await OperationFixtures.run([operation])
        #expect(operation.response?.statusCode == 200, "\(String(describing: operation.error))")
        #expect(operation.responseString == "Hello from nginx\n")
    }

    @Test func cliUnixSocketOption() async throws {
        let probe = NginxInterop.probe()
        let outcome = try await CLIRequestTests.courier(["get", "--unix-socket", try Self.socketPath(), "http://localhost/hello.txt?probe=\(probe)"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("Hello from nginx"))
        #expect(try await NginxInterop.accessLog(probe: probe, count: 1).count == 1)
    }

    @Test func badSocketPathsAreRefusedBeforeConnecting() async throws {
        let session = try NginxInterop.sessionManager()
        defer { session.invalidateSessionCancelingTasks(true) }
        let tooLong = "%2F" + String(repeating: "s", count: 200)
        for text in ["http+unix://\(tooLong)/", "http+unix://%2Fno%0Asuch.sock/"] {
            let url = try #require(URL(string: text))
            await #expect {
                _ = try await session.data(for: URLRequest(url: url))
            } throws: { error in
                (error as? URLError)?.code == .badURL
            }
        }
        let missing = try #require(URL(string: "http+unix://%2Fnonexistent%2Fcourier.sock/"))
        await #expect {
            _ = try await session.data(for: URLRequest(url: missing))
        } throws: { error in
            (error as? URLError)?.code == .cannotConnectToHost
        }
    }
}
