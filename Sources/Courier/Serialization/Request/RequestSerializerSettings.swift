import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything an ``HTTPRequestSerializer`` can be configured with, as one value kept behind the
/// serializer's lock.
struct RequestSerializerSettings: Sendable {
    var stringEncoding: String.Encoding = .utf8
    var allowsCellularAccess = true
    var cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy
    var httpShouldHandleCookies = true
    var httpShouldUsePipelining = false
    var networkServiceType: URLRequest.NetworkServiceType = .default
    var timeoutInterval: TimeInterval = 60
    var headers = HTTPHeaderFields()
    var httpMethodsEncodingParametersInURI: Set<String> = ["GET", "HEAD", "DELETE"]
    var queryStringSerialization: QueryStringSerialization = .style(.default)

    /// Copies the request-level settings onto `request`.
    func configure(_ request: inout URLRequest) {
        request.allowsCellularAccess = allowsCellularAccess
        request.cachePolicy = cachePolicy
        request.httpShouldHandleCookies = httpShouldHandleCookies
        // Going through the existential copies the request's storage; do it only for a change.
        if Self.pipelining(of: request) != httpShouldUsePipelining {
            var pipelining: any PipeliningConfigurable = request
            pipelining.httpShouldUsePipelining = httpShouldUsePipelining
            if let configured = pipelining as? URLRequest { request = configured }
        }
        request.networkServiceType = networkServiceType
        request.timeoutInterval = timeoutInterval
    }

    private static func pipelining(of request: URLRequest) -> Bool {
        (request as any PipeliningConfigurable).httpShouldUsePipelining
    }

    /// Adds each default header the request does not already have.
    func applyHeaders(to request: inout URLRequest) {
        for (name, value) in headers.dictionary where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
    }

    /// Whether `request`'s method puts parameters in the URL (method compared uppercased; a
    /// request without a method is a GET).
    func encodesParametersInURI(_ request: URLRequest) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        return httpMethodsEncodingParametersInURI.contains { $0.uppercased() == method }
    }
}

/// Reaches `URLRequest.httpShouldUsePipelining`, which Foundation deprecated, without a
/// deprecation warning: AFNetworking copies the setting onto every request, so Courier does too.
private protocol PipeliningConfigurable {
    var httpShouldUsePipelining: Bool { get set }
}

extension URLRequest: PipeliningConfigurable {}
