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
    ///
    /// Only the values that differ from the request's are set: on Linux each setter of a `URLRequest` goes through
    /// its reference storage (and copies it when the request is shared).
    func configure(_ request: inout URLRequest) {
        if request.allowsCellularAccess != allowsCellularAccess { request.allowsCellularAccess = allowsCellularAccess }
        if request.cachePolicy != cachePolicy { request.cachePolicy = cachePolicy }
        if request.httpShouldHandleCookies != httpShouldHandleCookies { request.httpShouldHandleCookies = httpShouldHandleCookies }
        // swift-corelibs-foundation's default is `true`, AFNetworking's `false`: this one is set on almost every
        // request, in place (a generic `inout`, not an existential, which would copy the request's storage).
        if Self.pipelining(of: request) != httpShouldUsePipelining { Self.setPipelining(httpShouldUsePipelining, on: &request) }
        if request.networkServiceType != networkServiceType { request.networkServiceType = networkServiceType }
        if request.timeoutInterval != timeoutInterval { request.timeoutInterval = timeoutInterval }
    }

    private static func pipelining<Request: PipeliningConfigurable>(of request: Request) -> Bool {
        request.httpShouldUsePipelining
    }

    private static func setPipelining<Request: PipeliningConfigurable>(_ value: Bool, on request: inout Request) {
        request.httpShouldUsePipelining = value
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
