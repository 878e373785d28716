import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Operations and `.default` sessions share one cookie jar, as AFNetworking's shared `NSHTTPCookieStorage`;
/// `.ephemeral` sessions keep their own. Against the in-process server's httpbin-style `/cookies` routes.
@Suite("Operations: cookies shared with sessions")
struct OperationCookieTests {
    /// The cookies the server received with a GET of `/cookies` by `operation`.
    static func receivedCookies(_ operation: HTTPRequestOperation) async throws -> [String: String] {
        await OperationFixtures.run([operation])
        #expect(operation.error == nil, "\(String(describing: operation.error))")
        let json = try #require(try JSONSerialization.jsonObject(with: operation.responseData ?? Data()) as? [String: Any])
        return try #require(json["cookies"] as? [String: String])
    }

    @Test func anOperationsCookieGoesWithTheNextOperationAndADefaultSessionsTask() async throws {
        // A name of this test's own: the jar is the process's.
        let name = "op\(UInt32.random(in: 0...UInt32.max))"
        let setter = try await OperationFixtures.operation(HTTPRequestOperation.self, "/cookies/set?\(name)=baked")
        _ = try await Self.receivedCookies(setter)
        #expect(CookieJar.processShared.cookieHeader(for: try await Fixtures.url("/"))?.contains("\(name)=baked") == true)

        let next = try await OperationFixtures.operation(HTTPRequestOperation.self, "/cookies")
        #expect(try await Self.receivedCookies(next)[name] == "baked")

        var configuration = SessionConfiguration.default
        configuration.transport = Fixtures.transport
        let session = URLSessionManager(configuration: configuration)
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, _) = try await session.data(for: try await SessionFixtures.request("/cookies"))
        let sent = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])["cookies"] as? [String: String]
        #expect(sent?[name] == "baked")

        // An ephemeral session has a jar of its own.
        let ephemeral = SessionFixtures.manager()
        defer { ephemeral.invalidateSessionCancelingTasks(true) }
        let (alone, _) = try await ephemeral.data(for: try await SessionFixtures.request("/cookies"))
        let none = try #require(try JSONSerialization.jsonObject(with: alone) as? [String: Any])["cookies"] as? [String: String]
        #expect(none?[name] == nil)

        // An operation without a jar neither sends nor stores.
        let jarless = try await OperationFixtures.operation(HTTPRequestOperation.self, "/cookies")
        jarless.cookieJar = nil
        #expect(try await Self.receivedCookies(jarless)[name] == nil)

        let deleter = try await OperationFixtures.operation(HTTPRequestOperation.self, "/cookies/delete?\(name)")
        #expect(try await Self.receivedCookies(deleter)[name] == nil)
        #expect(CookieJar.processShared.cookieHeader(for: try await Fixtures.url("/"))?.contains(name) != true)
    }

    @Test func aCopiedOperationKeepsItsJar() async throws {
        let jar = CookieJar()
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/cookies/set?copied=yes")
        operation.cookieJar = jar
        let copy = try #require(operation.copy() as? HTTPRequestOperation)
        #expect(copy.cookieJar === jar)
        _ = try await Self.receivedCookies(copy)
        #expect(jar.cookieHeader(for: try await Fixtures.url("/")) == "copied=yes")
    }
}
