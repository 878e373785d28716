import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Prints heads and bodies the way HTTPie does: status line, headers with `-v`, then the body
/// (JSON pretty-printed).
struct ResponsePrinter {
    let verbose: Bool

    func printRequest(_ request: URLRequest) {
        guard verbose, let url = request.url else { return }
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        print("\(request.httpMethod ?? "GET") \(path) HTTP/1.1")
        print("Host: \(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")")
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            print("\(name): \(value)")
        }
        print()
    }

    func printResponse(_ response: HTTPURLResponse, body: Data) {
        let reason = HTTPURLResponse.localizedString(forStatusCode: response.statusCode).capitalized
        print("HTTP/1.1 \(response.statusCode) \(reason)")
        if verbose {
            for (name, value) in response.allHeaderFields.map({ ("\($0.key)", "\($0.value)") }).sorted(by: { $0.0 < $1.0 }) {
                print("\(name): \(value)")
            }
        }
        guard !body.isEmpty else { return }
        print()
        print(Self.render(body, contentType: response.value(forHTTPHeaderField: "Content-Type")))
    }

    static func render(_ body: Data, contentType: String?) -> String {
        if contentType?.lowercased().contains("json") == true,
           let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
           let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed]),
           let text = String(data: pretty, encoding: .utf8) {
            return text
        }
        if let text = String(data: body, encoding: .utf8) { return text }
        return "[binary body: \(body.count) bytes]"
    }
}
