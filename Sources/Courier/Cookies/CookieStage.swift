import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends the jar's cookies with every request on the wire and stores every `Set-Cookie` that comes back (also on
/// redirects and challenges), for requests whose `httpShouldHandleCookies` is `true`.
struct CookieStage: ExchangeStage {
    /// Where cookies are read and stored.
    let jar: CookieJar

    /// Creates the stage.
    /// - Parameter jar: Where cookies are read and stored.
    init(jar: CookieJar) {
        self.jar = jar
    }

    /// Adds the jar's cookies for the request's URL and stores the answer's `Set-Cookie` fields.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        guard request.urlRequest.httpShouldHandleCookies, let url = request.urlRequest.url else {
            return try await next(request)
        }
        var request = request
        if let cookies = jar.cookieHeader(for: url) {
            request.urlRequest.setValue(cookies, forHTTPHeaderField: "Cookie")
        }
        let response = try await next(request)
        let values = response.transportResponse.headerFields.filter { $0.name.isHeaderName("Set-Cookie") }.map(\.value)
        if !values.isEmpty { jar.store(setCookieHeaders: values, for: url) }
        return response
    }
}
