import Foundation

/// A content coding Courier decodes (RFC 9110 §8.4.1).
enum ContentCoding: Sendable, Equatable {
    /// `gzip` (or `x-gzip`): RFC 1952, possibly several members one after another.
    case gzip
    /// `deflate`: the zlib format of RFC 1950 (some servers send raw RFC 1951 data; both are read).
    case deflate

    /// The one coding a `Content-Encoding` field value names, or `nil` when the body is not encoded (`identity` or
    /// empty), names a coding Courier does not decode, or lists several.
    init?(contentEncoding value: String) {
        var codings: [Substring] = []
        for part in value.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces)
            if name.isEmpty || name.lowercased() == "identity" { continue }
            codings.append(Substring(name))
        }
        guard codings.count == 1 else { return nil }
        switch codings[0].lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }

    /// Whether an `Accept-Encoding` value lists this coding with a weight above 0 (RFC 9110 §12.5.3; `*` counts).
    func isAccepted(by acceptEncoding: String) -> Bool {
        var accepted = false
        for member in acceptEncoding.split(separator: ",") {
            let parameters = member.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let token = parameters.first else { continue }
            let names = self == .gzip ? ["gzip", "x-gzip"] : ["deflate"]
            guard names.contains(token) || token == "*" else { continue }
            let weight = parameters.dropFirst().first(where: { $0.hasPrefix("q=") }).flatMap { Double($0.dropFirst(2)) } ?? 1
            // A listing of the coding by name wins over `*`.
            if token != "*" { return weight > 0 }
            accepted = weight > 0
        }
        return accepted
    }

    /// The name used in error messages.
    var name: String {
        switch self {
        case .gzip: "gzip"
        case .deflate: "deflate"
        }
    }
}
