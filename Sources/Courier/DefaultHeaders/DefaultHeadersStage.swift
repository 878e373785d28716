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

    /// Adds the default fields the request lacks. Each `setValue` after the first changes the request's own
    /// storage: only the first copies it.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        var request = request
        for (name, value) in additionalHeaders where request.urlRequest.value(forHTTPHeaderField: name) == nil {
            request.urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if let userAgent, request.urlRequest.value(forHTTPHeaderField: "User-Agent") == nil {
            request.urlRequest.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        }
        if asksForCompression, request.urlRequest.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            let isRange = request.urlRequest.value(forHTTPHeaderField: "Range") != nil
            request.urlRequest.setValue(ContentDecoding.acceptEncoding(forRange: isRange), forHTTPHeaderField: "Accept-Encoding")
        }
        if let length = request.body?.length,
           request.urlRequest.value(forHTTPHeaderField: "Content-Length") == nil,
           request.urlRequest.value(forHTTPHeaderField: "Transfer-Encoding") == nil {
            request.urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length")
        }
        return try await next(request)
    }
}
