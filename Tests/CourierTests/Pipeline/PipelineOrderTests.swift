import Foundation
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: the stage order and the stage contract")
struct PipelineOrderTests {
    @Test func theStandardStagesComeInTheDocumentedOrder() throws {
        var configuration = ExchangeConfiguration(transport: StubTransport(StubResponse()))
        configuration.stages = [ProbeStage("mine")]
        configuration.cookieJar = CookieJar()
        configuration.resumption = DownloadResumption(offset: 10, entityTag: "\"v1\"")
        configuration.credentialStore = CredentialStore()
        let names = ExchangePipeline.standardStages(for: configuration).map { String(describing: type(of: $0)) }
        #expect(names == [
            "ProbeStage", "DefaultHeadersStage", "ResumptionRestartStage", "RedirectStage", "AuthenticationStage",
            "CookieStage", "ContentDecodingStage",
        ])

        var bare = ExchangeConfiguration(transport: StubTransport(StubResponse()))
        bare.followsRedirects = false
        bare.resumption = DownloadResumption(offset: 10)  // no validator: nothing to continue
        bare.contentDecoding = nil
        bare.handlers.challengeHandler = { _ in .performDefaultHandling }
        #expect(ExchangePipeline.standardStages(for: bare).map { String(describing: type(of: $0)) } == ["DefaultHeadersStage", "AuthenticationStage"])
        bare.handlers.challengeHandler = nil
        #expect(
            ExchangePipeline.standardStages(for: bare).map { String(describing: type(of: $0)) } == ["DefaultHeadersStage"],
            "nothing to answer a challenge with: no stage"
        )
    }

    @Test func aStageSeesTheRequestAfterTheStagesBeforeItAndTheResponseBeforeThem() async throws {
        let stub = StubTransport(.text("hello"))
        let journal = Journal()
        let first = ProbeStage("first", journal: journal) { $0.urlRequest.setValue("1", forHTTPHeaderField: "X-First") }
        let second = ProbeStage("second", journal: journal) { $0.urlRequest.setValue("2", forHTTPHeaderField: "X-Second") }
        let exchange = StageTests.exchange("/hello", over: stub) { $0.stages = [first, second] }
        let result = try await exchange.result()

        #expect(StageTests.text(result) == "hello")
        #expect(journal.all == ["first ↓", "second ↓", "second ↑", "first ↑"])
        #expect(first.requests.first?.value(forHTTPHeaderField: "X-First") == nil)
        #expect(second.requests.first?.value(forHTTPHeaderField: "X-First") == "1", "the second stage sees the first one's change")
        #expect(second.requests.first?.value(forHTTPHeaderField: "X-Second") == nil)
        let sent = try #require(stub.requests.first)
        #expect(sent.value(forHTTPHeaderField: "X-First") == "1")
        #expect(sent.value(forHTTPHeaderField: "X-Second") == "2")
    }

    @Test func callerStagesSeeOneRequestAndTheFinalResponseOfARedirectChain() async throws {
        let stub = StubTransport(routes: ["/a": .redirect(to: "/b"), "/b": .redirect(to: "/c", statusCode: 307), "/c": .text("end")])
        let mine = ProbeStage("mine") { $0.urlRequest.setValue("yes", forHTTPHeaderField: "X-Mine") }
        let result = try await StageTests.exchange("/a", over: stub) { $0.stages = [mine] }.result()

        #expect(mine.requests.map { $0.url?.path } == ["/a"])
        let response = try #require(mine.responses.first)
        #expect(response.head.statusCode == 200)
        #expect(response.request.url?.path == "/c")
        #expect(response.redirectCount == 2)
        #expect(result.redirectCount == 2)
        #expect(stub.requests.map(\.path) == ["/a", "/b", "/c"])
        #expect(stub.requests.allSatisfy { $0.value(forHTTPHeaderField: "X-Mine") == "yes" }, "every hop carries the caller stage's header")
    }

    @Test func aStageCanAnswerWithoutTheTransport() async throws {
        struct Canned: ExchangeStage {
            func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
                let url = try request.urlRequest.url ?? { throw URLError(.badURL) }()
                let head = try HTTPURLResponse(url: url, statusCode: 203, httpVersion: "HTTP/1.1", headerFields: nil) ?? { throw URLError(.badServerResponse) }()
                let response = TransportResponse(head: head, headerFields: [], body: ResponseBodyStream(data: Data("cached".utf8)))
                return StageResponse(request: request.urlRequest, transportResponse: response)
            }
        }
        let stub = StubTransport(.text("from the network"))
        let result = try await StageTests.exchange("/x", over: stub) { $0.stages = [Canned()] }.result()
        #expect(result.response.statusCode == 203)
        #expect(StageTests.text(result) == "cached")
        #expect(stub.requests.isEmpty)
    }

    @Test func anErrorInAStageEndsTheExchangeWithIt() async throws {
        struct Refused: Error, Equatable {}
        let stub = StubTransport(.text("never"))
        let exchange = StageTests.exchange("/x", over: stub) { $0.stages = [FailingStage(error: Refused())] }
        await #expect(throws: Refused.self) { _ = try await exchange.result() }
        #expect(exchange.phase == .failed)
        #expect(stub.requests.isEmpty)
    }

    @Test func aCancellationFromAStageCancelsTheExchange() async throws {
        let exchange = StageTests.exchange("/x", over: StubTransport(.text("never"))) {
            $0.stages = [FailingStage(error: CancellationError())]
        }
        await #expect { _ = try await exchange.result() } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(exchange.phase == .cancelled)
    }

    /// A transport failure reaches the caller unchanged through every standard stage.
    @Test(arguments: [URLError.Code.timedOut, .cannotConnectToHost, .networkConnectionLost, .secureConnectionFailed, .serverCertificateUntrusted])
    func aTransportFailurePassesEveryStage(code: URLError.Code) async throws {
        let exchange = StageTests.exchange("/x", over: StubTransport(.failure(code))) {
            $0.cookieJar = CookieJar()
            $0.resumption = DownloadResumption(offset: 4, entityTag: "\"v\"")
        }
        await #expect { _ = try await exchange.result() } throws: {
            ($0 as? URLError)?.code == code && ($0 as? URLError)?.failureURLString == "http://api.example/x"
        }
        #expect(exchange.phase == .failed)
    }

    @Test func exchangeCancelStopsAStubbedRequestWaitingForItsHead() async throws {
        let stub = StubTransport(StubResponse(delay: .seconds(30)))
        let exchange = StageTests.exchange("/slow", over: stub)
        let started = ContinuousClock.now
        let waiting = Task { try await exchange.result() }
        #expect(await eventually { !stub.requests.isEmpty })
        exchange.cancel()
        await #expect { _ = try await waiting.value } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(exchange.phase == .cancelled)
    }
}
