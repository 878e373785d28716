import Foundation

/// Where the bytes of a multipart part come from.
enum MultipartPartSource {
    case data(Data)
    case file(URL)
    case stream(InputStream)
}

/// One part of a multipart form: its headers and where its body comes from.
struct MultipartPart {
    /// Header fields in the order they are written.
    var headers: [(name: String, value: String)]
    var source: MultipartPartSource
    /// The exact number of body bytes.
    var length: Int64

    /// `Content-Disposition` for a form field (`name` only) or a file (`name` and `filename`).
    /// Quotes, CR and LF in the names are escaped as `%22`, `%0D`, `%0A` (as browsers do).
    static func contentDisposition(name: String, fileName: String? = nil) -> String {
        var value = "form-data; name=\"\(quoted(name))\""
        if let fileName { value += "; filename=\"\(quoted(fileName))\"" }
        return value
    }

    private static func quoted(_ text: String) -> String {
        percentEscaped(text, quotes: true)
    }

    /// `text` with every CR written `%0D`, every LF `%0A` and, with `quotes`, every `"` `%22`. Works scalar by
    /// scalar: `replacingOccurrences(of:with:)` compares `Character`s, so it would leave a quote or line break that a
    /// combining mark joins into one character (`"` + U+064B) as it is, ending a quoted string or a header line.
    static func percentEscaped(_ text: String, quotes: Bool) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || (quotes && $0 == 0x22) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"" where quotes: result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// The throttling of a multipart body stream.
struct MultipartThrottle: Sendable, Equatable {
    /// The most bytes returned by one read.
    var packetSize: Int = .max
    /// The pause after each read, in seconds.
    var delay: TimeInterval = 0
}
