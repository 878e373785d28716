import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one place Courier adds header fields the caller did not set (OkHttp's bridge), so that what a request
/// carries on the wire is decided here and nowhere else above the transport:
///
/// - the session's additional headers (``RequestSettings/additionalHeaders``, `httpAdditionalHeaders`);
/// - `User-Agent`: ``RequestSettings/userAgent`` (by default the one ``HTTPRequestSerializer`` sends), as URLSession
///   gives every request one;
/// - `Accept-Encoding`, when ``RequestSettings/contentDecoding`` is on: `gzip, deflate`, or `identity` for a range
///   request (see `ContentDecoding.acceptEncoding(forRange:)`);
/// - `Content-Length` for a body of known length (the engine frames the body by that length; the header makes the
///   request as logged and traced say so).
///
/// A field the request already has is never replaced. The stage runs once per attempt, after the caller's stages and
/// before the interceptors (so an adapter that signs the request sees what is sent) and the follow-ups: a redirect
/// hop carries what the redirect rule lets it keep, so a session's `Authorization` is not added again for another
/// origin. The other fields a hop gets belong to their concerns' stages: `Cookie` (`CookieStage`), `Authorization`
/// for a challenge (`AuthenticationStage`), the cache's validators (`CacheStage`), the trace context
/// (`ObservationStage`); `Host` and the framing are the transport's.
struct DefaultHeadersStage: ExchangeStage {
    /// Fields every request gets unless it sets them.
    let additionalHeaders: [String: String]
    /// The `User-Agent` of a request without one, or `nil` for none.
    let userAgent: String?
    /// Whether `Accept-Encoding` is added.
    let asksForCompression: Bool

    init(settings: RequestSettings) {
        additionalHeaders = settings.additionalHeaders
        userAgent = settings.userAgent
        asksForCompression = settings.contentDecoding != nil
    }

    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        var request = request
        addDefaults(to: &request.urlRequest, bodyLength: request.body?.length)
        return try await next(request)
    }

    /// Adds the default fields `request` lacks; `bodyLength` is its body's, when known.
    ///
    /// The request's fields are read once and written back with one assignment, under the names
    /// `setValue(_:forHTTPHeaderField:)` would store. On Linux each `value(forHTTPHeaderField:)` lowercases every field
    /// name twice and each `setValue` capitalizes the name and searches again: asked one by one, the four defaults
    /// cost a small GET about 2.5 % of its CPU.
    func addDefaults(to request: inout URLRequest, bodyLength: Int64?) {
        let existing = request.allHTTPHeaderFields ?? [:]
        var added: [String: String] = [:]
        var unusual: [(name: String, value: String)] = []
        // A field set here counts as present for the ones after it, as it did when each went in with `setValue`.
        func lacks(_ name: String) -> Bool {
            !existing.keys.contains { $0.isHeaderName(name) } && !added.keys.contains { $0.isHeaderName(name) }
                && !unusual.contains { $0.name.isHeaderName(name) }
        }
        for (name, value) in additionalHeaders where lacks(name) {
            // A value with a line break or NUL is left to Foundation's own check, as a `setValue` would be.
            if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                unusual.append((name, value))
            } else {
                added[name.capitalized] = value
            }
        }
        if let userAgent, lacks("User-Agent") { added["User-Agent"] = userAgent }
        if asksForCompression, lacks("Accept-Encoding") {
            added["Accept-Encoding"] = ContentDecoding.acceptEncoding(forRange: !lacks("Range"))
        }
        if let bodyLength, lacks("Content-Length"), lacks("Transfer-Encoding") {
            added["Content-Length"] = String(bodyLength)
        }
        if !added.isEmpty {
            request.allHTTPHeaderFields = existing.merging(added) { own, _ in own }
        }
        for (name, value) in unusual { request.setValue(value, forHTTPHeaderField: name) }
    }
}

extension RequestSettings {
    /// `request` with the header fields these settings make Courier add before it is sent (`DefaultHeadersStage`):
    /// ``additionalHeaders``, ``userAgent``, `Accept-Encoding` when ``contentDecoding`` is on, and `Content-Length`
    /// for an `httpBody`. For showing a request as it will go out without sending it (the command line's
    /// `--offline`); the fields added for each hop by their own stages (cookies, challenge answers, cache
    /// validators, the trace context) are not in it.
    public func addingDefaultHeaders(to request: URLRequest) -> URLRequest {
        var request = request
        DefaultHeadersStage(settings: self).addDefaults(to: &request, bodyLength: request.httpBody.map { Int64($0.count) })
        return request
    }
}
