@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #13, item 1: URLs the engine would trap on (a port above 65535, an empty or line-breaking
/// host) fail with `URLError(.badURL)` — the caller's own URL and every redirect's `Location` —
/// through the exchange, the sessions, the operations and the CLI, and the process lives on.
@Suite("Data safety: URLs the engine traps on", .timeLimit(.minutes(3)))
struct URLTrapTests {
    static let badURLs = [
        "http://127.0.0.1:99999/x",
        "http://127.0.0.1:65536/",
        "http://127.0.0.1:0/",
        "http://localhost:99999/",
        "http://127.0.0.1:999999999999999999999/",
        "http://a%0d%0ab.example/",
        "http://exa%20mple.com/",
        "http://[fe80::1%25]/",
    ]

    @Test(arguments: badURLs)
    func theCallersURLFailsAsBadURL(_ text: String) async throws {
        let url = try #require(URL(string: text))
        let error = await #expect(throws: URLError.self) {
            _ = try await Exchange(request: URLRequest(url: url), configuration: .init(transport: Fixtures.transport)).result()
        }
        #expect(error?.code == .badURL, "\(String(describing: error))")
        #expect(error?.failureURLString == text)
    }

    @Test func theCheckReadsThePortFromTheURLText() throws {
        #expect(RequestURLCheck.portText(of: "http://user:p:w@host:8080/a:b") == "8080")
        #expect(RequestURLCheck.portText(of: "http://[::1]:81/") == "81")
        #expect(RequestURLCheck.portText(of: "http://[::1]/x:1") == nil)
        #expect(RequestURLCheck.portText(of: "http://host/") == nil)
        #expect(RequestURLCheck.portText(of: "http://host:/") == "")
        let target = try RequestURLCheck.check(try #require(URL(string: "https://Example.com:/p")))
        #expect(target == .init(scheme: "https", host: "Example.com", port: 443))
        #expect(try RequestURLCheck.check(try #require(URL(string: "http://[::1]:65535/"))).port == 65535)
        #expect(RequestURLCheck.isToken("GET") && !RequestURLCheck.isToken("GET /x HTTP/1.1\r\n") && !RequestURLCheck.isToken(""))
    }

    @Test(arguments: ["http://127.0.0.1:99999/x", "http://127.0.0.1:65536/", "http://[]/"])
    func aRedirectToABadURLFailsWithTheRedirectAvailable(_ location: String) async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let start = server.url("/redirect-to?location=\(location.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        let exchange = Exchange(request: URLRequest(url: start), configuration: .init(transport: Fixtures.transport))
        do {
            let result = try await exchange.result()
            // Foundation finds no host in "http://[]/": the redirect is not followable, so the 302 is the result.
            #expect(location == "http://[]/", "followed to \(String(describing: result.request.url))")
            #expect(result.response.statusCode == 302)
        } catch let error as URLError {
            #expect(error.code == .badURL)
            #expect((error.userInfo[Exchange.redirectResponseKey] as? HTTPURLResponse)?.statusCode == 302)
            #expect(exchange.response?.statusCode == 302)
        }
        #expect(server.requests.count == 1)
    }

    @Test func sessionsAndOperationsFailTheRedirectToo() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let start = server.url("/redirect-to?location=http://127.0.0.1:99999/x")

        let manager = SessionFixtures.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let task = manager.dataTask(with: URLRequest(url: start), uploadProgress: nil, downloadProgress: nil, completionHandler: nil)
        await #expect(throws: URLError.self) { _ = try await task.value }
        #expect((task.error as? URLError)?.code == .badURL)
        #expect((task.response as? HTTPURLResponse)?.statusCode == 302)

        let operation = HTTPRequestOperation(request: URLRequest(url: start))
        operation.transport = Fixtures.transport
        operation.start()
        await operation.finished()
        #expect((operation.error as? URLError)?.code == .badURL, "\(String(describing: operation.error))")

        let direct = HTTPRequestOperation(request: URLRequest(url: URL(string: "http://127.0.0.1:65536/")!))
        direct.transport = Fixtures.transport
        direct.start()
        await direct.finished()
        #expect((direct.error as? URLError)?.code == .badURL)
    }

    @Test func theCLIReportsABadURLAndExits() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let direct = try await CLIRequestTests.courier(["get", "http://127.0.0.1:99999/"])
        #expect(direct.status == 4)
        #expect(direct.standardError.contains("99999 is not between 1 and 65535"), "\(direct.standardError)")

        let redirected = try await CLIRequestTests.courier(["get", server.url("/redirect-to?location=http://127.0.0.1:65536/x").absoluteString])
        #expect(redirected.status == 4)
        #expect(redirected.standardError.contains("65536 is not between 1 and 65535"), "\(redirected.standardError)")

        let folder = try Fixtures.temporaryDirectory("badurl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let download = try await CLIRequestTests.courier([
            "download", server.url("/redirect-to?location=http://127.0.0.1:99999/x").absoluteString, "-o", folder.appendingPathComponent("f").path,
        ])
        #expect(download.status == 4)
        #expect(download.standardError.contains("99999"), "\(download.standardError)")
    }
}

extension URLError {
    /// The failing URL's text.
    var failureURLString: String? { (userInfo[NSURLErrorFailingURLErrorKey] as? URL)?.absoluteString }
}
