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
        text.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

/// The throttling of a multipart body stream.
struct MultipartThrottle: Sendable, Equatable {
    /// The most bytes returned by one read.
    var packetSize: Int = .max
    /// The pause after each read, in seconds.
    var delay: TimeInterval = 0
}
