import Foundation
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: RedirectStage against StubTransport")
struct RedirectStageTests {
    @Test func a303AfterAPostBecomesAGetWithoutABody() async throws {
        let stub = StubTransport(routes: ["/form": .redirect(to: "/done", statusCode: 303), "/done": .text("ok")])
        let result = try await StageTests.exchange("/form", method: "POST", body: Data("a=1".utf8), over: stub).result()
        #expect(StageTests.text(result) == "ok")
        #expect(stub.requests.map(\.method) == ["POST", "GET"])
        #expect(stub.requests.map(\.body) == [Data("a=1".utf8), nil])
    }

    @Test func a307KeepsTheMethodAndSendsTheBodyAgain() async throws {
        let stub = StubTransport(routes: ["/upload": .redirect(to: "/elsewhere", statusCode: 307), "/elsewhere": .text("stored")])
        _ = try await StageTests.exchange("/upload", method: "PUT", body: Data("payload".utf8), over: stub).result()
        #expect(stub.requests.map(\.method) == ["PUT", "PUT"])
        #expect(stub.requests.map(\.body) == [Data("payload".utf8), Data("payload".utf8)])
    }

    @Test func crossingToAnotherOriginDropsAuthorization() async throws {
        let stub = StubTransport(routes: ["/start": .redirect(to: "http://other.example/landing"), "/landing": .text("there")])
        let exchange = StageTests.exchange("/start", over: stub)
        var request = exchange.originalRequest
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        _ = try await Exchange(request: request, configuration: exchange.configuration).result()
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer secret", nil])
        #expect(stub.requests.last?.url.host == "other.example")
    }

    @Test func oneRedirectMoreThanTheLimitFails() async throws {
        let stub = StubTransport { request in
            let hop = Int(request.path.dropFirst()) ?? 0
            return .redirect(to: "/\(hop + 1)")
        }
        let exchange = StageTests.exchange("/0", over: stub) { $0.maximumRedirects = 3 }
        await #expect { _ = try await exchange.result() } throws: { error in
            let error = error as? URLError
            return error?.code == .httpTooManyRedirects && error?.failureURLString == "http://api.example/3"
        }
        #expect(stub.requests.count == 4, "the original request and three redirects")
    }

    @Test func theHookSeesEachHopAndMayStop() async throws {
        let stub = StubTransport(routes: ["/a": .redirect(to: "/b"), "/b": .redirect(to: "/c"), "/c": .text("end")])
        let seen = Journal()
        let exchange = StageTests.exchange("/a", over: stub) {
            $0.handlers.redirectHandler = { proposed, response in
                seen.append("\(response.statusCode) → \(proposed.url?.path ?? "?")")
                return proposed.url?.path == "/c" ? nil : proposed
            }
        }
        let result = try await exchange.result()
        #expect(seen.all == ["302 → /b", "302 → /c"])
        #expect(result.response.statusCode == 302, "the declined redirect is the result")
        #expect(result.request.url?.path == "/b")
        #expect(result.redirectCount == 1)
    }

    @Test func notFollowingDeliversTheRedirect() async throws {
        let stub = StubTransport(routes: ["/a": .redirect(to: "/b")])
        let result = try await StageTests.exchange("/a", over: stub) { $0.followsRedirects = false }.result()
        #expect(result.response.statusCode == 302)
        #expect(stub.requests.count == 1)
    }

    @Test func aLocationNoRequestCanGoToFailsWithTheRedirectAttached() async throws {
        let stub = StubTransport(routes: ["/a": .redirect(to: "http://api.example:99999/b")])
        let exchange = StageTests.exchange("/a", over: stub)
        await #expect { _ = try await exchange.result() } throws: { error in
            let error = error as? URLError
            return error?.code == .badURL && (error?.userInfo[Exchange.redirectResponseKey] as? HTTPURLResponse)?.statusCode == 302
        }
        #expect(stub.requests.count == 1)
    }

    @Test func aStreamUploadIsAskedForAgainForA307() async throws {
        let stub = StubTransport(routes: ["/up": .redirect(to: "/again", statusCode: 307), "/again": .text("ok")])
        let exchange = StageTests.exchange("/up", method: "POST", over: stub) {
            $0.body = .inputStream(InputStream(data: Data("first".utf8)), length: 5)
            $0.handlers.newBodyStream = { _ in InputStream(data: Data("fresh".utf8)) }
        }
        _ = try await exchange.result()
        #expect(stub.requests.map(\.body) == [Data("first".utf8), Data("fresh".utf8)])
    }
}
