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

    /// The name used in error messages.
    var name: String {
        switch self {
        case .gzip: "gzip"
        case .deflate: "deflate"
        }
    }
}
