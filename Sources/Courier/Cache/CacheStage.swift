import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers requests from an ``HTTPCache`` and keeps what the network answers, by the request's `cachePolicy` and
/// RFC 9111: the stage between the bridge and the transport, once per request on the wire.
///
/// - `.useProtocolCachePolicy`: a fresh stored response answers at once; a stale one with a validator is revalidated
///   (a `304` refreshes the stored head and serves the stored body); otherwise the request goes out.
/// - `.reloadIgnoringLocalCacheData`: goes out; the answer is stored. `.reloadIgnoringLocalAndRemoteCacheData`: the
///   same, with `Cache-Control: no-cache` so that caches on the way revalidate too.
/// - `.returnCacheDataElseLoad`: any stored response answers, however old; else the request goes out.
/// - `.returnCacheDataDontLoad`: only a stored response answers; without one the request fails with
///   `URLError(.resourceUnavailable)` and nothing is sent.
/// - `.reloadRevalidatingCacheData`: a stored response with a validator is always revalidated.
///
/// A request's own `Cache-Control` counts under `.useProtocolCachePolicy`: `no-cache` and `max-age=0` revalidate,
/// `max-stale`, `min-fresh` and `max-age` bound the age accepted, `no-store` stores nothing, and `only-if-cached`
/// answers from the cache or fails with `URLError(.resourceUnavailable)` without sending anything.
///
/// A response is stored once its body has been read to the end (a body that fails or is abandoned is not), after
/// ``willStore`` has seen it. Requests with their own conditional headers, ranges or bodies pass by.
struct CacheStage: ExchangeStage {
    /// Where responses are looked up and stored.
    let cache: HTTPCache
    /// See each response about to be stored and return what to store (the same, a changed one) or `nil` to store
    /// nothing (``ExchangeHooks/willCache(_:)``: the operation's cache-response block, the session's
    /// will-cache-response block).
    let hooks: any ExchangeHooks

    /// Creates the stage.
    /// - Parameters:
    ///   - cache: Where responses are looked up and stored.
    ///   - hooks: Decide what is stored. Default: none (store what came).
    init(cache: HTTPCache, hooks: any ExchangeHooks = NoExchangeHooks()) {
        self.cache = cache
        self.hooks = hooks
    }

    /// Answers from the cache, revalidates, or sends the request and stores the answer, as `cachePolicy` and RFC 9111 say.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        let urlRequest = request.urlRequest
        let method = urlRequest.httpMethod?.uppercased() ?? "GET"
        guard let url = urlRequest.url else { return try await next(request) }
        guard method == "GET" else {
            let response = try await next(request)
            invalidateAfterUnsafe(method: method, url: url, response: response)
            return response
        }
        // One pass over the request's fields (each `value(forHTTPHeaderField:)` would scan them all again).
        var cacheControl: [String] = []
        var pragma: [String] = []
        var hasOwnConditions = false
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            if name.isHeaderName("Cache-Control") {
                cacheControl.append(value)
            } else if name.isHeaderName("Pragma") {
                pragma.append(value)
            } else if Self.ownConditions.contains(where: { name.isHeaderName($0) }) {
                hasOwnConditions = true
            }
        }
        guard request.body == nil, !hasOwnConditions else { return try await next(request) }
        let control = CacheControl(cacheControl: cacheControl, pragma: pragma)
        let now = Date()
        let stored = cache.entry(for: url).flatMap { Self.matchesVary($0, urlRequest) ? $0 : nil }

        switch urlRequest.cachePolicy {
        case .reloadIgnoringLocalCacheData:
            return try await fetch(request, control: control, next: next)
        case .reloadIgnoringLocalAndRemoteCacheData:
            var reloading = request
            reloading.urlRequest.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            return try await fetch(reloading, control: control, next: next)
        case .returnCacheDataElseLoad:
            if let stored { return try answer(from: stored, to: urlRequest, now: now, source: .cache) }
            return try await fetch(request, control: control, next: next)
        case .returnCacheDataDontLoad:
            if let stored { return try answer(from: stored, to: urlRequest, now: now, source: .cache) }
            throw URLError(.resourceUnavailable, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "No stored response for \(url.absoluteString), and the cache policy forbids loading it.",
            ])
        case .reloadRevalidatingCacheData:
            if let stored, stored.hasValidator { return try await revalidate(stored, request, control: control, next: next) }
            return try await fetch(request, control: control, next: next)
        default:
            if control.onlyIfCached {
                // RFC 9111 §5.2.1.7: a stored response that satisfies the request, or nothing from the network.
                if let stored, Freshness.isFresh(stored, for: control, now: now) {
                    return try answer(from: stored, to: urlRequest, now: now, source: .cache)
                }
                throw URLError(.resourceUnavailable, userInfo: [
                    NSURLErrorFailingURLErrorKey: url,
                    NSLocalizedDescriptionKey: "No usable stored response for \(url.absoluteString), and the request says only-if-cached.",
                ])
            }
            guard let stored else { return try await fetch(request, control: control, next: next) }
            if Freshness.isFresh(stored, for: control, now: now) {
                return try answer(from: stored, to: urlRequest, now: now, source: .cache)
            }
            if stored.hasValidator { return try await revalidate(stored, request, control: control, next: next) }
            return try await fetch(request, control: control, next: next)
        }
    }

    // MARK: Answering from the cache

    /// `entry` as a response to `request`, with its current `Age`.
    private func answer(from entry: CachedEntry, to request: URLRequest, now: Date, source: ResponseSource) throws -> StageResponse {
        var fields = entry.headerFields.filter { !$0.name.isHeaderName("Age") }.map { (name: $0.name, value: $0.value) }
        fields.append((name: "Age", value: String(Int(Freshness.age(of: entry, now: now)))))
        guard let url = request.url,
              let head = HTTPURLResponse.received(url: url, statusCode: entry.statusCode, httpVersion: entry.httpVersion, fields: fields)
        else {
            throw URLError(.cannotParseResponse, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any])
        }
        let response = TransportResponse(
            head: head, headerFields: fields, body: ResponseBodyStream(data: entry.body), httpVersion: entry.httpVersion
        )
        ExchangeLog.decision("answered from the cache", [
            "courier.cache.source": "\(source == .revalidated ? "revalidated" : "cache")",
            "url.full": "\(LogRedaction.loggable(url))",
        ])
        return StageResponse(request: request, transportResponse: response, source: source)
    }

    /// Asks the server whether `entry` is still current; a `304` makes it the answer.
    private func revalidate(_ entry: CachedEntry, _ request: StageRequest, control: CacheControl, next: Next) async throws -> StageResponse {
        var conditional = request
        if let tag = entry.value("ETag") { conditional.urlRequest.setValue(tag, forHTTPHeaderField: "If-None-Match") }
        if let modified = entry.value("Last-Modified") {
            conditional.urlRequest.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
        }
        let sent = Date()
        let response = try await next(conditional)
        guard response.head.statusCode == 304 else {
            return storing(response, for: request.urlRequest, control: control, sent: sent)
        }
        response.body.cancel()
        let refreshed = entry.updated(with: response.transportResponse.headerFields, requestTime: sent, responseTime: Date())
        cache.store(refreshed)
        return try answer(from: refreshed, to: request.urlRequest, now: Date(), source: .revalidated)
    }

    // MARK: Storing what the network answers

    private func fetch(_ request: StageRequest, control: CacheControl, next: Next) async throws -> StageResponse {
        let sent = Date()
        return storing(try await next(request), for: request.urlRequest, control: control, sent: sent)
    }

    /// `response`, with a body that stores it once read to the end when it may be stored.
    private func storing(_ response: StageResponse, for request: URLRequest, control: CacheControl, sent: Date) -> StageResponse {
        let fields = response.transportResponse.headerFields
        let head = response.head
        guard Self.mayStore(status: head.statusCode, fields: fields, request: request, requestControl: control) else {
            return response
        }
        let vary = CachedEntry.varyNames(in: fields)
        var selecting: [String: String?] = [:]
        for name in vary { selecting[name] = request.value(forHTTPHeaderField: name) }
        let template = CachedEntry(
            url: head.url?.absoluteString ?? request.url?.absoluteString ?? "", statusCode: head.statusCode,
            httpVersion: response.transportResponse.httpVersion,
            headerFields: fields.map { CachedEntry.HeaderField(name: $0.name, value: $0.value) },
            selectingHeaders: selecting, requestTime: sent, responseTime: Date(), body: Data()
        )
        let body = response.body
        let recorder = StoringBody(base: body, template: template, head: head, cache: cache, hooks: hooks)
        var stored = response
        stored.transportResponse = TransportResponse(
            head: head, headerFields: fields, body: ResponseBodyStream(recorder, cancel: body.cancel),
            httpVersion: response.transportResponse.httpVersion, connection: response.transportResponse.connection,
            staleConnectionRetries: response.transportResponse.staleConnectionRetries
        )
        return stored
    }

    /// Whether a response may be stored (RFC 9111 §3): a status cacheable by default, no `no-store` on either side,
    /// not `Vary: *`, and for a request with `Authorization`, a response that allows it (§3.5).
    static func mayStore(status: Int, fields: [(name: String, value: String)], request: URLRequest, requestControl: CacheControl) -> Bool {
        guard Freshness.heuristicallyCacheable.contains(status), !requestControl.noStore else { return false }
        let values = { (name: String) in fields.filter { $0.name.isHeaderName(name) }.map(\.value) }
        let control = CacheControl(cacheControl: values("Cache-Control"), pragma: values("Pragma"))
        if control.noStore || CachedEntry.varyNames(in: fields).contains("*") { return false }
        if request.value(forHTTPHeaderField: "Authorization") != nil, !(control.isPublic || control.mustRevalidate) {
            return false
        }
        return true
    }

    /// RFC 9111 §4.4: a successful or redirected unsafe request makes the stored response for its URL (and for a
    /// `Location` or `Content-Location` on the same origin) stale; Courier removes them.
    private func invalidateAfterUnsafe(method: String, url: URL, response: StageResponse) {
        guard !["HEAD", "OPTIONS", "TRACE"].contains(method), (200..<400).contains(response.head.statusCode) else { return }
        cache.removeResponse(for: url)
        for name in ["Location", "Content-Location"] {
            guard let value = response.head.value(forHTTPHeaderField: name),
                  let target = URL(string: value, relativeTo: url)?.absoluteURL,
                  target.scheme == url.scheme, target.host == url.host, target.port == url.port
            else { continue }
            cache.removeResponse(for: target)
        }
    }

    /// Whether `entry` was stored for a request with the same values of the headers its `Vary` names.
    static func matchesVary(_ entry: CachedEntry, _ request: URLRequest) -> Bool {
        entry.selectingHeaders.allSatisfy { name, value in request.value(forHTTPHeaderField: name) == value }
            && Set(entry.varyNames).isSubset(of: Set(entry.selectingHeaders.keys))
    }

    /// Headers that make a request the caller's own conditional or partial one, which the cache leaves alone.
    private static let ownConditions = ["If-None-Match", "If-Modified-Since", "If-Range", "Range", "If-Match", "If-Unmodified-Since"]
}

/// Where an exchange's final response came from.
public enum ResponseSource: Sendable, Equatable {
    /// The network.
    case network
    /// The cache, without asking the server.
    case cache
    /// The cache, after the server confirmed it with a `304`.
    case revalidated
}

/// A body that collects the bytes it passes on and, read to the end, stores the response (through the will-store
/// hook). Bytes beyond the cache's largest entry are not collected: that response will not be stored.
private struct StoringBody: AsyncSequence, Sendable {
    typealias Element = Data
    let base: ResponseBodyStream
    let template: CachedEntry
    let head: HTTPURLResponse
    let cache: HTTPCache
    let hooks: any ExchangeHooks

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), body: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBodyStream.Iterator
        let body: StoringBody
        var collected: Data? = Data()

        mutating func next() async throws -> Data? {
            guard let chunk = try await base.next() else {
                if let collected {
                    await body.store(collected)
                    self.collected = nil
                }
                return nil
            }
            if var kept = collected {
                collected = nil
                kept.append(chunk)
                if kept.count <= body.cache.maximumEntrySize { collected = kept }
            }
            return chunk
        }
    }

    /// Stores the response with `data` as its body, as the hook decides.
    func store(_ data: Data) async {
        var entry = template
        entry.body = data
        entry.responseTime = Date()
        guard let chosen = await hooks.willCache(CachedURLResponse(response: head, data: data)) else { return }
        entry.body = chosen.data
        if let response = chosen.response as? HTTPURLResponse, response !== head {
            entry.statusCode = response.statusCode
            entry.headerFields = response.allHeaderFields.compactMap { name, value in
                guard let name = name as? String, let value = value as? String else { return nil }
                return CachedEntry.HeaderField(name: name, value: value)
            }
        }
        cache.store(entry)
    }
}
