import Foundation
import Synchronization
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``ExchangeHooks`` as a user implements it (#33: one hook type with default methods): a type that writes only the
/// methods it needs gets the defaults for the rest, against httpbin.
@Suite(
    "Exchange hooks a caller writes (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct ExchangeHooksTests {
    /// Records what the exchange told it, and stops after the first redirect.
    final class Recorder: ExchangeHooks {
        struct Seen {
            var hops: [Int] = []
            var heads: [Int] = []
            var chunkBytes = 0
            var lastProgress: Int64 = 0
            var completions = 0
        }

        let seen = Mutex(Seen())
        let followsOne: Bool

        init(followsOne: Bool) { self.followsOne = followsOne }

        func willRedirect(_ proposed: URLRequest, after response: HTTPURLResponse) async -> URLRequest? {
            let count = seen.withLock { $0.hops.append(response.statusCode); return $0.hops.count }
            return followsOne && count == 1 ? proposed : nil
        }

        func didReceive(response: HTTPURLResponse) { seen.withLock { $0.heads.append(response.statusCode) } }
        func didReceive(data: Data) { seen.withLock { $0.chunkBytes += data.count } }
        func didReceiveBody(_ progress: TransferProgress) { seen.withLock { $0.lastProgress = progress.totalBytes } }
        func didComplete(_ outcome: Result<ExchangeResult, any Error>) { seen.withLock { $0.completions += 1 } }
    }

    static func exchange(_ path: String, hooks: any ExchangeHooks) async throws -> ExchangeResult {
        let base = try #require(HTTPBinServer.base)
        let url = try #require(URL(string: path, relativeTo: base)?.absoluteURL)
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.hooks = hooks
        return try await Exchange(request: URLRequest(url: url, timeoutInterval: 30), configuration: configuration).result()
    }

    @Test func theHooksSeeTheHopsTheHeadTheBodyAndTheEnd() async throws {
        let recorder = Recorder(followsOne: true)
        let result = try await Self.exchange("/redirect/3", hooks: recorder)
        let seen = recorder.seen.withLock { $0 }
        // Followed the first hop, refused the second: the second 302 is the result, with its body.
        #expect(seen.hops == [302, 302])
        #expect(result.response.statusCode == 302)
        #expect(result.redirectCount == 1)
        #expect(seen.heads == [302], "only the final head is told")
        #expect(seen.chunkBytes == result.data?.count)
        #expect(seen.lastProgress == Int64(result.data?.count ?? -1))
        #expect(seen.completions == 1)
    }

    /// A type that implements nothing gets every default: redirects followed, no challenge asked, the body received.
    @Test func aTypeWithNoMethodsGetsEveryDefault() async throws {
        struct Silent: ExchangeHooks {}
        #expect(!Silent().answersChallenges && !Silent().suppliesBodyStreams)
        let result = try await Self.exchange("/redirect/2", hooks: Silent())
        #expect(result.response.statusCode == 200)
        #expect(result.redirectCount == 2)
        #expect(result.data?.isEmpty == false)

        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.hooks = Silent()
        #expect(configuration.handlers.redirectHandler == nil, "another type's hooks read as empty handlers")
        configuration.handlers.redirectHandler = { _, _ in nil }
        #expect(configuration.hooks is ExchangeHandlers, "setting handlers replaces the hooks")
    }
}
