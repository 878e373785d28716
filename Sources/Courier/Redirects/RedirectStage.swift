import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Follows redirects (``RedirectRule``), each hop seen by the redirect hook, up to a limit.
///
/// A 3xx without a usable `Location`, or one the hook declines, is the result. A `Location` no request can go to
/// (a port out of range, a host with forbidden characters) fails with `URLError(.badURL)` carrying the 3xx response
/// under ``Exchange/redirectResponseKey``. One more redirect than ``maximumRedirects`` fails with
/// `URLError(.httpTooManyRedirects)`.
struct RedirectStage: ExchangeStage {
    /// The most redirects followed.
    let maximumRedirects: Int
    /// Sees each proposed next request with the 3xx response (``ExchangeHooks/willRedirect(_:after:)``), and supplies
    /// a fresh body stream for a 307 or 308 of a stream upload.
    let hooks: any ExchangeHooks

    /// Creates the stage.
    /// - Parameters:
    ///   - maximumRedirects: The most redirects followed. Default 16.
    ///   - hooks: The exchange's hooks. Default: none (follow every redirect).
    init(maximumRedirects: Int = 16, hooks: any ExchangeHooks = NoExchangeHooks()) {
        self.maximumRedirects = maximumRedirects
        self.hooks = hooks
    }

    /// Sends the request and follows the redirects of its answers, each through the redirect hook, up to the limit.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        var request = request
        var redirects = 0
        while true {
            var response = try await next(request)
            // The next hop is built from this stage's request: what the stages below added for one hop (a cookie,
            // an answer to a challenge) is theirs to add again.
            guard let target = try await nextRequest(after: response, from: request.urlRequest) else {
                response.redirectCount = redirects
                return response
            }
            try await FollowUpRequest.abandon(response, sentBody: request.body)
            guard redirects < maximumRedirects else {
                throw URLError(.httpTooManyRedirects, userInfo: [
                    NSURLErrorFailingURLErrorKey: response.request.url as Any,
                    NSLocalizedDescriptionKey: "Stopped after \(maximumRedirects) redirects.",
                ])
            }
            redirects += 1
            let method = (request.urlRequest.httpMethod ?? "GET").uppercased()
            let body = RedirectRule.dropsBody(status: response.head.statusCode, method: method)
                ? nil
                : FollowUpRequest.body(request.body, resentWith: target, hooks: hooks)
            request.urlRequest = target
            request.body = body
        }
    }

    /// The next request of a redirect, or `nil` to deliver the response.
    private func nextRequest(after response: StageResponse, from request: URLRequest) async throws -> URLRequest? {
        guard let proposed = RedirectRule.nextRequest(after: response.head, for: request) else { return nil }
        guard let next = await hooks.willRedirect(proposed, after: response.head), let url = next.url else { return nil }
        do {
            _ = try RequestURLCheck.check(url)
        } catch {
            response.body.cancel()
            throw error.urlError(for: url, userInfo: [Exchange.redirectResponseKey: response.head])
        }
        ExchangeLog.decision("following redirect", [
            "http.response.status_code": "\(response.head.statusCode)",
            "url.full": "\(LogRedaction.loggable(url))",
        ])
        return next
    }
}

extension Exchange {
    /// The user-info key of the 3xx response in the error of a redirect that could not be followed.
    public static let redirectResponseKey = "CourierRedirectResponse"
}
