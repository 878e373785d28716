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
    ///
    /// The fields go in with one assignment of `allHTTPHeaderFields`, under the names `setValue(_:forHTTPHeaderField:)`
    /// would store: on Linux each `setValue` capitalizes the name and searches the request's fields again (one by one,
    /// the default headers cost a small GET about 15 µs of CPU, 3–4% of it).
    func applyHeaders(to request: inout URLRequest) {
        guard !headers.fields.isEmpty else { return }
        var fields = request.allHTTPHeaderFields ?? [:]
        let present = Set(fields.keys.map { $0.lowercased() })
        var unusual: [HTTPHeaderFields.Field] = []
        var added = false
        for (key, field) in headers.fields where !present.contains(key) {
            if field.isPlain {
                fields[field.storedName] = field.value
                added = true
            } else {
                unusual.append(field)
            }
        }
        if added { request.allHTTPHeaderFields = fields }
        for field in unusual { request.setValue(field.value, forHTTPHeaderField: field.name) }
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
