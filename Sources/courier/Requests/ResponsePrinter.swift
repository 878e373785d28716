import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Prints the final response on standard output the way HTTPie does: the status line, the header fields
/// with `--verbose`, then the body (JSON pretty-printed, binary bodies summarized).
struct ResponsePrinter {
    let verbose: Bool

    /// Prints the status line, the headers when verbose, and `body` when there is one.
    func printResponse(_ response: HTTPURLResponse, httpVersion: String?, body: Data?) {
        let head = VerboseTrace.responseHead(response, version: httpVersion)
        print(head[0])
        if verbose {
            for line in head.dropFirst() { print(line) }
        }
        guard let body, !body.isEmpty else { return }
        print()
        print(Self.render(body, contentType: response.value(forHTTPHeaderField: "Content-Type")))
    }

    /// The body as text: pretty JSON for a JSON content type, UTF-8 text, or a byte count for binary data.
    static func render(_ body: Data, contentType: String?) -> String {
        if contentType?.lowercased().contains("json") == true,
           let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
           let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]),
           let text = String(data: pretty, encoding: .utf8) {
            return text
        }
        if let text = String(data: body, encoding: .utf8) { return text }
        return "[binary body: \(body.count) bytes]"
    }
}
