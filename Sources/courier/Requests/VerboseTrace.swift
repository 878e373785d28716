import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `--verbose` trace of an exchange, from its metrics: each request sent with its head (`>` lines), each
/// response head (`<` lines), the redirects and challenges between them (`*` lines), and the timings.
/// Written to standard error so that standard output stays the response.
struct VerboseTrace {
    let metrics: ExchangeMetrics

    /// The trace as lines.
    var lines: [String] {
        var lines: [String] = []
        let transactions = metrics.transactions
        for (index, transaction) in transactions.enumerated() {
            if transaction.isFromCache, let response = transaction.response {
                lines.append("* answered from the cache (--cache); nothing was sent")
                lines += Self.responseHead(response, version: transaction.httpVersion).map { "< " + $0 }
                lines.append("<")
                continue
            }
            lines += Self.requestHead(transaction.request, version: transaction.httpVersion).map { "> " + $0 }
            lines.append(">")
            if transaction.staleConnectionRetries > 0 {
                lines.append("* the reused connection was closed before any answer; sent again on a new connection")
            }
            guard let response = transaction.response else {
                lines.append("* no response to request \(index + 1)")
                continue
            }
            lines += Self.responseHead(response, version: transaction.httpVersion).map { "< " + $0 }
            lines.append("<")
            if index + 1 < transactions.count, let next = transactions[index + 1].request.url {
                if RedirectRule.redirectStatusCodes.contains(response.statusCode) {
                    lines.append("* redirect \(index + 1): \(response.statusCode) to \(next.absoluteString)")
                } else if response.statusCode == 401 {
                    let scheme = response.value(forHTTPHeaderField: "WWW-Authenticate")?.split(separator: " ").first.map(String.init) ?? "the"
                    lines.append("* answering the \(scheme) challenge with the -u credential")
                }
            }
        }
        if metrics.responseSource == .revalidated {
            lines.append("* the server confirmed the stored response (304): it is served from the cache")
        }
        lines += timingLines
        return lines
    }

    /// One line per request (time to the response head, then to the end of its body) and the total.
    var timingLines: [String] {
        var lines: [String] = []
        for (index, transaction) in metrics.transactions.enumerated() {
            var line = "* timing \(index + 1): "
            if let head = transaction.responseStart {
                line += "head after \(Self.milliseconds(head.timeIntervalSince(transaction.requestStart)))"
                if let end = transaction.responseEnd {
                    line += ", body \(Self.milliseconds(end.timeIntervalSince(head)))"
                }
            } else {
                line += "no response after \(Self.milliseconds(Date().timeIntervalSince(transaction.requestStart)))"
            }
            lines.append(line)
        }
        let count = metrics.transactions.count
        let duration = metrics.duration ?? Date().timeIntervalSince(metrics.fetchStart)
        lines.append("* total \(Self.milliseconds(duration)) for \(count) request\(count == 1 ? "" : "s")")
        return lines
    }

    /// The protocol version as a line on the wire writes it: `HTTP/2` for HTTP/2 (RFC 9113, and curl's and
    /// HTTPie's traces; the engine reports `HTTP/2.0`), `HTTP/1.1` when not known (before sending, or with no answer).
    static func displayedVersion(_ version: String?) -> String {
        guard let version else { return "HTTP/1.1" }
        return version == "HTTP/2.0" ? "HTTP/2" : version
    }

    /// The request line, `Host` and the header fields sorted by name; `version` is the protocol the request went
    /// over (the answer's), as ``displayedVersion(_:)`` writes it.
    static func requestHead(_ request: URLRequest, version: String? = nil) -> [String] {
        guard let url = request.url else { return [] }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var lines = ["\(request.httpMethod ?? "GET") \(target) \(displayedVersion(version))"]
        lines.append("Host: \(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")")
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            lines.append("\(name): \(value)")
        }
        return lines
    }

    /// The status line and the header fields sorted by name.
    static func responseHead(_ response: HTTPURLResponse, version: String?) -> [String] {
        let phrase = HTTPURLResponse.localizedString(forStatusCode: response.statusCode).capitalized
        let reason = phrase == "Ok" ? "OK" : phrase
        var lines = ["\(displayedVersion(version)) \(response.statusCode) \(reason)"]
        let fields = response.allHeaderFields.map { ("\($0.key)", "\($0.value)") }.sorted { $0.0.lowercased() < $1.0.lowercased() }
        for (name, value) in fields {
            lines.append("\(name): \(value)")
        }
        return lines
    }

    private static func milliseconds(_ interval: TimeInterval) -> String {
        String(format: "%.1f ms", interval * 1000)
    }
}
