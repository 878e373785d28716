@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #13, item 7: the credential given for a request answers challenges from that request's
/// origin only. Origin A redirects to origin B (another port), which challenges with Basic or
/// Digest: B must never see the password — unless the credential store holds an entry for B's
/// protection space, which is an explicit per-host credential.
@Suite("Data safety: credentials stay with their origin", .timeLimit(.minutes(2)))
struct CredentialOriginTests {
    static let alice = URLCredential(user: "alice", password: "secret", persistence: .forSession)

    /// Two hostile servers: A (the request's origin) and B (where A redirects).
    static func servers() async throws -> (a: HostileServer, b: HostileServer) {
        (try await HostileRoutes.startServer(), try await HostileRoutes.startServer())
    }

    static func crossOrigin(_ a: HostileServer, _ b: HostileServer, scheme: String) -> URL {
        let target = b.url("/challenge/\(scheme)").absoluteString
        return a.url("/redirect-to?location=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
    }

    @Test(arguments: ["basic", "digest"])
    func theExchangeDoesNotAnswerAnotherOriginsChallenge(scheme: String) async throws {
        let (a, b) = try await Self.servers()
        defer { Task { await a.stop(); await b.stop() } }
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.credential = Self.alice
        let result = try await Exchange(request: URLRequest(url: Self.crossOrigin(a, b, scheme: scheme)), configuration: configuration).result()
        #expect(result.response.statusCode == 401)
        #expect(b.requests.count == 1, "B was asked again with a credential")
        #expect(b.requests.allSatisfy { $0.header("Authorization") == nil })

        // The same credential on A's own challenge is sent (the control).
        let own = try await Exchange(request: URLRequest(url: a.url("/challenge/\(scheme)")), configuration: configuration).result()
        #expect(own.response.statusCode == 401)
        let answered = try #require(a.requests(to: "/challenge/\(scheme)").last?.header("Authorization"))
        #expect(answered.lowercased().hasPrefix(scheme))
    }

    @Test func aStoredCredentialForTheOtherOriginIsUsed() async throws {
        let (a, b) = try await Self.servers()
        defer { Task { await a.stop(); await b.stop() } }
        let store = CredentialStore()
        store.set(URLCredential(user: "bob", password: "b-only", persistence: .forSession), host: "127.0.0.1", port: b.port, realm: "hostile")
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.credential = Self.alice
        configuration.credentialStore = store
        _ = try await Exchange(request: URLRequest(url: Self.crossOrigin(a, b, scheme: "basic")), configuration: configuration).result()
        let sent = b.requests.compactMap { $0.header("Authorization") }
        #expect(sent == ["Basic " + Data("bob:b-only".utf8).base64EncodedString()])
    }

    @Test func operationsKeepTheirCredentialToo() async throws {
        let (a, b) = try await Self.servers()
        defer { Task { await a.stop(); await b.stop() } }
        let operation = HTTPRequestOperation(request: URLRequest(url: Self.crossOrigin(a, b, scheme: "basic")))
        operation.transport = Fixtures.transport
        operation.credential = Self.alice
        operation.shouldUseCredentialStorage = false
        operation.start()
        await operation.finished()
        #expect(operation.response?.statusCode == 401)
        #expect(b.requests.allSatisfy { $0.header("Authorization") == nil })
    }

    @Test func theCLIDoesNotSendTheUserOptionToAnotherOrigin() async throws {
        let (a, b) = try await Self.servers()
        defer { Task { await a.stop(); await b.stop() } }
        let outcome = try await CLIRequestTests.courier(["get", "-p", "hb", "-u", "alice:secret", Self.crossOrigin(a, b, scheme: "basic").absoluteString])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.hasPrefix("HTTP/1.1 401 "))
        #expect(b.requests.count == 1)
        #expect(b.requests.allSatisfy { $0.header("Authorization") == nil }, "\(b.requests.map(\.headers))")
        #expect(a.requests.allSatisfy { $0.header("Authorization") == nil }, "A never challenged")
    }
}
