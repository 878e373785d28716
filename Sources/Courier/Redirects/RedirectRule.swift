import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a redirect response turns into the next request (RFC 9110 §15.4, as browsers and
/// URLSession apply it). Pure: no I/O.
package enum RedirectRule {
    /// The status codes that redirect.
    package static let redirectStatusCodes: Set<Int> = [301, 302, 303, 307, 308]

    /// The request to send after `response`, or `nil` when `response` is not a followable
    /// redirect (not a redirect status, or no usable `Location`).
    ///
    /// - 301, 302 and 303 become `GET` without a body (a `HEAD` stays `HEAD`);
    /// - 307 and 308 keep the method and the body;
    /// - a redirect into a Unix domain socket (`http+unix`) is followed only from a URL on one;
    /// - crossing to another origin (scheme, host or port) drops `Authorization`,
    ///   `Proxy-Authorization` and `Cookie` (the cookie storage adds the new origin's own).
    package static func nextRequest(after response: HTTPURLResponse, for request: URLRequest) -> URLRequest? {
        guard redirectStatusCodes.contains(response.statusCode),
              let currentURL = request.url,
              let location = response.value(forHTTPHeaderField: "Location"),
              let target = URL(string: location, relativeTo: currentURL)?.absoluteURL,
              let scheme = target.scheme?.lowercased(),
              scheme == "http" || scheme == "https" || (scheme == "http+unix" && currentURL.scheme?.lowercased() == scheme),
              target.host?.isEmpty == false
        else { return nil }

        var next = request
        next.url = target
        let method = (request.httpMethod ?? "GET").uppercased()
        if dropsBody(status: response.statusCode, method: method) {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding", "Content-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        if Origin(currentURL) != Origin(target) {
            for name in ["Authorization", "Proxy-Authorization", "Cookie"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }

    /// Whether following this redirect changes the method to `GET` and drops the body.
    static func dropsBody(status: Int, method: String) -> Bool {
        [301, 302, 303].contains(status) && method != "HEAD" && method != "GET"
    }
}

/// A URL's origin: scheme, host and effective port.
struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}
