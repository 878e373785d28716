import Foundation
import Testing
import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `StubTransport` used as a user would: only the public API, no server.
@Suite("CourierTesting: StubTransport behind a session manager")
struct StubTransportTests {
    static func manager(_ stub: StubTransport) -> HTTPSessionManager {
        var configuration = SessionConfiguration()
        configuration.transport = stub
        return HTTPSessionManager(baseURL: URL(string: "https://api.example/v1/"), configuration: configuration)
    }

    @Test func cannedJSONIsDecodedByTheSessionManager() async throws {
        let stub = StubTransport(routes: ["/v1/users/1": .json(#"{"id": 1, "name": "Ada"}"#)])
        let manager = Self.manager(stub)
        defer { manager.invalidateSessionCancelingTasks(true) }

        let (object, response) = try await manager.get("users/1", parameters: ["fields": "name"])
        let user = try #require(object as? [String: Any])
        #expect(user["name"] as? String == "Ada")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")

        let request = try #require(stub.requests.first)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "https://api.example/v1/users/1?fields=name")
        #expect(request.value(forHTTPHeaderField: "Accept-Language") != nil, "the serializer's default headers went out")
    }

    @Test func decodableAnswersAndRecordedBodies() async throws {
        struct User: Codable, Equatable { let id: Int; let name: String }
        let stub = StubTransport { request in
            try .json(encoding: User(id: 2, name: "Grace"), statusCode: request.method == "POST" ? 201 : 200)
        }
        let manager = Self.manager(stub)
        defer { manager.invalidateSessionCancelingTasks(true) }

        let (user, response) = try await manager.post("users", parameters: ["name": "Grace"], as: User.self)
        #expect(user == User(id: 2, name: "Grace"))
        #expect(response.statusCode == 201)
        let sent = try #require(stub.requests.first)
        #expect(sent.body == Data("name=Grace".utf8))
        #expect(sent.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    @Test func aStreamedBodyArrivesChunkByChunk() async throws {
        let chunks = (0..<5).map { Data("chunk \($0)\n".utf8) }
        let stub = StubTransport(StubResponse(body: .chunks(chunks, every: .milliseconds(20))))
        let manager = Self.manager(stub)
        defer { manager.invalidateSessionCancelingTasks(true) }

        let started = ContinuousClock.now
        let (response, body) = try await manager.bytes(for: URLRequest(url: URL(string: "https://api.example/v1/feed")!))
        #expect(response.statusCode == 200)
        #expect(response.expectedContentLength == -1, "a body over time has no Content-Length")
        var received: [Data] = []
        for try await chunk in body { received.append(chunk) }
        #expect(received == chunks)
        #expect(ContinuousClock.now - started >= .milliseconds(80), "the pauses between chunks were kept")
    }

    @Test func anInjectedTimeoutReachesTheCaller() async throws {
        let stub = StubTransport(.failure(.timedOut, after: .milliseconds(10)))
        let manager = Self.manager(stub)
        defer { manager.invalidateSessionCancelingTasks(true) }

        await #expect { _ = try await manager.get("slow") } throws: { error in
            let error = error as? URLError
            return error?.code == .timedOut && error?.failureURLString == "https://api.example/v1/slow"
        }
    }

    @Test func aConnectionLostMidBodyFailsTheTask() async throws {
        let stub = StubTransport(StubResponse(body: .chunks([Data("{\"partial\":".utf8)], thenFail: .networkConnectionLost)))
        let manager = Self.manager(stub)
        defer { manager.invalidateSessionCancelingTasks(true) }

        await #expect { _ = try await manager.get("feed") } throws: { ($0 as? URLError)?.code == .networkConnectionLost }
    }

    @Test func cancellingTheCallerEndsADelayedAnswerAtOnce() async throws {
        let stub = StubTransport(StubResponse(delay: .seconds(30)))
        let manager = Self.manager(stub)
        defer { manager.invalidateSessionCancelingTasks(true) }

        let started = ContinuousClock.now
        let call = Task { _ = try await manager.get("slow") }
        #expect(await eventually { !stub.requests.isEmpty })
        call.cancel()
        await #expect { _ = try await call.value } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func redirectsAndStatusesRunForReal() async throws {
        let stub = StubTransport(routes: [
            "/v1/old": .redirect(to: "/v1/new", statusCode: 301),
            "/v1/new": .json(#"{"moved": true}"#),
        ])
        let manager = Self.manager(stub)
        defer { manager.invalidateSessionCancelingTasks(true) }

        let (object, response) = try await manager.get("old")
        #expect((object as? [String: Any])?["moved"] as? Bool == true)
        #expect(response.url?.path == "/v1/new")
        #expect(stub.requests.map(\.path) == ["/v1/old", "/v1/new"])

        await #expect { _ = try await manager.get("missing") } throws: { error in
            (error as? ResponseSerializationError) != nil
        }
    }
}
