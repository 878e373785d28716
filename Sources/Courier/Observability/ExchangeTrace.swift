import Foundation
import Synchronization
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The spans of one exchange (see ``Telemetry``): the logical request's, and one child per request on the wire.
final class ExchangeTrace: Sendable {
    private let tracer: any Tracer
    /// The logical request's span; its context is the parent of every wire span.
    let span: any Span
    private let attempts = Mutex<Attempts>(Attempts())

    private struct Attempts {
        /// The wire request's span still open (its body is being read, or was abandoned for a follow-up).
        var open: (any Span)?
        var count = 0
    }

    /// Starts the logical span of `request`, as a child of the caller's context.
    init(tracer: any Tracer, request: URLRequest) {
        self.tracer = tracer
        let method = request.httpMethod ?? "GET"
        span = tracer.startSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .internal)
        span.updateAttributes { attributes in
            Self.describe(request.url, method: method, into: &attributes)
        }
    }

    /// Starts the span of a request going on the wire (ending the previous one) and injects its context into the
    /// request's header fields through the tracer.
    func attemptStarting(_ request: inout URLRequest, url: URL) {
        let method = request.httpMethod ?? "GET"
        let attempt = tracer.startSpan(method, context: span.context, ofKind: .client)
        let (previous, resends) = attempts.withLock { attempts in
            defer {
                attempts.open = attempt
                attempts.count += 1
            }
            return (attempts.open, attempts.count)
        }
        previous?.end()
        attempt.updateAttributes { attributes in
            Self.describe(url, method: method, into: &attributes)
            if resends > 0 { attributes["http.request.resend_count"] = resends }
        }
        tracer.inject(attempt.context, into: &request, using: HeaderFieldInjector())
    }

    /// The wire request's head arrived.
    func attemptAnswered(statusCode: Int, httpVersion: String) {
        guard let attempt = attempts.withLock({ $0.open }) else { return }
        attempt.updateAttributes { attributes in
            attributes["http.response.status_code"] = statusCode
            attributes["network.protocol.version"] = Self.protocolVersion(httpVersion)
        }
        if statusCode >= 400 { Self.markFailed(attempt, errorType: "\(statusCode)") }
    }

    /// The wire request failed before a head arrived.
    func attemptFailed(_ error: any Error) {
        guard let attempt = attempts.withLock({ state -> (any Span)? in
            defer { state.open = nil }
            return state.open
        }) else { return }
        attempt.recordError(LogRedaction.RedactedError(error))
        Self.markFailed(attempt, errorType: ErrorType.name(of: error))
        attempt.end()
    }

    /// Ends the open wire span and the logical span with the exchange's outcome.
    func finished(_ outcome: Result<ExchangeResult, any Error>) {
        let open = attempts.withLock { state -> (any Span)? in
            defer { state.open = nil }
            return state.open
        }
        switch outcome {
        case .success(let result):
            let status = result.response.statusCode
            span.attributes["http.response.status_code"] = status
            if status >= 400 { Self.markFailed(span, errorType: "\(status)") }
        case .failure(let error):
            if let open {
                open.recordError(LogRedaction.RedactedError(error))
                Self.markFailed(open, errorType: ErrorType.name(of: error))
            }
            span.recordError(LogRedaction.RedactedError(error))
            Self.markFailed(span, errorType: ErrorType.name(of: error))
        }
        open?.end()
        span.end()
    }

    private static func markFailed(_ span: any Span, errorType: String) {
        span.attributes["error.type"] = errorType
        span.setStatus(SpanStatus(code: .error))
    }

    /// OpenTelemetry's request attributes for `url`.
    private static func describe(_ url: URL?, method: String, into attributes: inout SpanAttributes) {
        attributes["http.request.method"] = method
        attributes["url.full"] = LogRedaction.loggable(url)
        guard let url else { return }
        if let host = url.host { attributes["server.address"] = host }
        if let port = url.port ?? defaultPort(of: url.scheme) { attributes["server.port"] = port }
    }

    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// `HTTP/1.1` → `1.1`, `HTTP/1.0` → `1.0`, `HTTP/2.0` → `2`, as OpenTelemetry writes them.
    private static func protocolVersion(_ httpVersion: String) -> String {
        let version = httpVersion.hasPrefix("HTTP/") ? String(httpVersion.dropFirst(5)) : httpVersion
        return version == "2.0" || version == "3.0" ? String(version.dropLast(2)) : version
    }
}

/// Writes a tracer's propagation fields (`traceparent`…) into a request's header fields, replacing a field of the
/// same name (whatever its case) so a request never carries two contexts.
struct HeaderFieldInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout URLRequest) {
        carrier.setValue(value, forHTTPHeaderField: key)
    }
}
