import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cache: CacheStage against StubTransport")
struct CacheStageTests {
    static let url = URL(string: "http://api.example/thing")!

    /// A stub answering with `headers` and a body naming the request's number, so a stored body is recognisable.
    static func server(_ headers: [(String, String)], status: Int = 200, notModifiedWhen validator: String? = nil) -> StubTransport {
        let count = Atomic<Int>(0)
        let fields = headers.map { (name: $0.0, value: $0.1) }
        return StubTransport { request in
            let number = count.add(1, ordering: .relaxed).newValue
            if let validator, request.value(forHTTPHeaderField: "If-None-Match") == validator
                || request.value(forHTTPHeaderField: "If-Modified-Since") == validator {
                return StubResponse(statusCode: 304, headers: [("X-Refreshed", "\(number)")])
            }
            return StubResponse(statusCode: status, headers: fields + [("Content-Type", "text/plain")], body: .data(Data("response \(number)".utf8)))
        }
    }

    static func get(
        _ stub: StubTransport, cache: HTTPCache, policy: URLRequest.CachePolicy = .useProtocolCachePolicy,
        headers: [String: String] = [:], method: String = "GET",
        configure: (inout ExchangeConfiguration) -> Void = { _ in }
    ) async throws -> ExchangeResult {
        var request = URLRequest(url: url, cachePolicy: policy)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        var configuration = ExchangeConfiguration(transport: stub)
        configuration.cache = cache
        configure(&configuration)
        return try await Exchange(request: request, configuration: configuration).result()
    }

    static func text(_ result: ExchangeResult) -> String { String(decoding: result.data ?? Data(), as: UTF8.self) }

    @Test func aFreshResponseIsAnsweredFromTheCacheWithItsAge() async throws {
        let stub = Self.server([("Cache-Control", "max-age=60")])
        let cache = HTTPCache()
        let first = try await Self.get(stub, cache: cache)
        let second = try await Self.get(stub, cache: cache)
        #expect(stub.requests.count == 1)
        #expect(Self.text(second) == Self.text(first))
        #expect(second.response.value(forHTTPHeaderField: "Age") == "0")
        #expect(first.metrics.responseSource == .network)
        #expect(second.metrics.responseSource == .cache)
        #expect(second.metrics.transactions.map(\.isFromCache) == [true])
    }

    @Test func noStoreIsNeverStoredAndNoCacheIsAlwaysRevalidated() async throws {
        let noStore = Self.server([("Cache-Control", "no-store, max-age=60")])
        let cache = HTTPCache()
        _ = try await Self.get(noStore, cache: cache)
        _ = try await Self.get(noStore, cache: cache)
        #expect(noStore.requests.count == 2)

        let noCache = Self.server([("Cache-Control", "no-cache"), ("ETag", "\"v1\"")], notModifiedWhen: "\"v1\"")
        let first = try await Self.get(noCache, cache: cache)
        let second = try await Self.get(noCache, cache: cache)
        #expect(noCache.requests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, "\"v1\""])
        #expect(Self.text(second) == Self.text(first), "the 304 serves the stored body")
        #expect(second.response.statusCode == 200)
        #expect(second.response.value(forHTTPHeaderField: "X-Refreshed") == "2", "the 304's fields update the stored head")
        #expect(second.metrics.responseSource == .revalidated)
    }

    @Test func staleWithLastModifiedIsRevalidatedWithIfModifiedSince() async throws {
        let modified = "Mon, 02 Nov 2026 10:00:00 GMT"
        let stub = Self.server([("Cache-Control", "max-age=0"), ("Last-Modified", modified)], notModifiedWhen: modified)
        let cache = HTTPCache()
        _ = try await Self.get(stub, cache: cache)
        let second = try await Self.get(stub, cache: cache)
        #expect(stub.requests.last?.value(forHTTPHeaderField: "If-Modified-Since") == modified)
        #expect(Self.text(second) == "response 1")
    }

    @Test func expiresInTheFutureIsFreshAndInThePastIsNot() async throws {
        let http = DateFormatter.httpDate
        let cache = HTTPCache()
        let future = Self.server([("Date", http.string(from: Date())), ("Expires", http.string(from: Date() + 3600))])
        _ = try await Self.get(future, cache: cache)
        _ = try await Self.get(future, cache: cache)
        #expect(future.requests.count == 1)
        cache.removeAllResponses()
        let past = Self.server([("Date", http.string(from: Date())), ("Expires", http.string(from: Date() - 3600))])
        _ = try await Self.get(past, cache: cache)
        _ = try await Self.get(past, cache: cache)
        #expect(past.requests.count == 2)
    }

    @Test func varyMatchesTheSelectingHeaders() async throws {
        let stub = Self.server([("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        let cache = HTTPCache()
        _ = try await Self.get(stub, cache: cache, headers: ["Accept-Language": "fr"])
        _ = try await Self.get(stub, cache: cache, headers: ["Accept-Language": "fr"])
        #expect(stub.requests.count == 1)
        let german = try await Self.get(stub, cache: cache, headers: ["Accept-Language": "de"])
        #expect(stub.requests.count == 2)
        #expect(Self.text(german) == "response 2")
    }

    @Test func anUnsafeRequestInvalidatesTheStoredResponse() async throws {
        let stub = Self.server([("Cache-Control", "max-age=60")])
        let cache = HTTPCache()
        _ = try await Self.get(stub, cache: cache)
        _ = try await Self.get(stub, cache: cache, method: "POST")
        _ = try await Self.get(stub, cache: cache)
        #expect(stub.requests.map(\.method) == ["GET", "POST", "GET"])
    }

    @Test func everyCachePolicyIsHonoured() async throws {
        let stale = Self.server([("Cache-Control", "max-age=0"), ("ETag", "\"e\"")], notModifiedWhen: "\"e\"")
        let cache = HTTPCache()
        // Nothing stored: only-from-cache fails without sending anything.
        let refused = await #expect(throws: URLError.self) {
            try await Self.get(stale, cache: cache, policy: .returnCacheDataDontLoad)
        }
        #expect(refused?.code == .resourceUnavailable)
        #expect(stale.requests.isEmpty)
        _ = try await Self.get(stale, cache: cache)
        // A stale entry answers when the policy takes any stored response.
        let elseLoad = try await Self.get(stale, cache: cache, policy: .returnCacheDataElseLoad)
        let dontLoad = try await Self.get(stale, cache: cache, policy: .returnCacheDataDontLoad)
        #expect(stale.requests.count == 1)
        #expect(elseLoad.metrics.responseSource == .cache && dontLoad.metrics.responseSource == .cache)
        // Reloads go out without conditions; the remote one asks caches on the way to revalidate.
        _ = try await Self.get(stale, cache: cache, policy: .reloadIgnoringLocalCacheData)
        _ = try await Self.get(stale, cache: cache, policy: .reloadIgnoringLocalAndRemoteCacheData)
        #expect(stale.requests.suffix(2).map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, nil])
        #expect(stale.requests.last?.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
        // Revalidating even a fresh entry.
        let fresh = Self.server([("Cache-Control", "max-age=600"), ("ETag", "\"f\"")], notModifiedWhen: "\"f\"")
        _ = try await Self.get(fresh, cache: cache)
        let revalidated = try await Self.get(fresh, cache: cache, policy: .reloadRevalidatingCacheData)
        #expect(fresh.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"f\"")
        #expect(revalidated.metrics.responseSource == .revalidated)
    }

    @Test func theRequestsOwnDirectivesCount() async throws {
        let stub = Self.server([("Cache-Control", "max-age=60"), ("ETag", "\"d\"")], notModifiedWhen: "\"d\"")
        let cache = HTTPCache()
        let nothing = await #expect(throws: URLError.self) {
            try await Self.get(stub, cache: cache, headers: ["Cache-Control": "only-if-cached"])
        }
        #expect(nothing?.code == .resourceUnavailable)
        #expect(stub.requests.isEmpty)
        _ = try await Self.get(stub, cache: cache, headers: ["Cache-Control": "no-store"])
        #expect(cache.entry(for: Self.url) == nil, "a request's no-store stores nothing")
        _ = try await Self.get(stub, cache: cache)
        let cached = try await Self.get(stub, cache: cache, headers: ["Cache-Control": "only-if-cached"])
        #expect(cached.metrics.responseSource == .cache)
        let revalidated = try await Self.get(stub, cache: cache, headers: ["Cache-Control": "max-age=0"])
        #expect(revalidated.metrics.responseSource == .revalidated)
        #expect(stub.requests.count == 3)
    }

    @Test func theHookDecidesWhatIsStored() async throws {
        let stub = Self.server([("Cache-Control", "max-age=60")])
        let cache = HTTPCache()
        _ = try await Self.get(stub, cache: cache) { $0.handlers.willCacheResponse = { _ in nil } }
        _ = try await Self.get(stub, cache: cache) { $0.handlers.willCacheResponse = { proposed in
            CachedURLResponse(response: proposed.response, data: Data("changed".utf8))
        } }
        let third = try await Self.get(stub, cache: cache)
        #expect(stub.requests.count == 2, "refused by the hook the first time, stored the second")
        #expect(Self.text(third) == "changed")
    }

    @Test func aBodyThatFailsIsNotStored() async throws {
        let stub = StubTransport(StubResponse(
            headers: [("Cache-Control", "max-age=60")], body: .chunks([Data("part".utf8)], thenFail: .networkConnectionLost)
        ))
        let cache = HTTPCache()
        await #expect(throws: URLError.self) { try await Self.get(stub, cache: cache) }
        #expect(cache.entry(for: Self.url) == nil)
    }

    @Test func requestsWithTheirOwnConditionsOrRangesPassBy() async throws {
        let stub = Self.server([("Cache-Control", "max-age=60")])
        let cache = HTTPCache()
        _ = try await Self.get(stub, cache: cache)
        _ = try await Self.get(stub, cache: cache, headers: ["If-None-Match": "\"x\""])
        _ = try? await Self.get(stub, cache: cache, headers: ["Range": "bytes=0-1"])
        #expect(stub.requests.count == 3)
    }
}
