import Courier
import Foundation

/// A job's request as both stores keep it: `OperationArchive.Request` as JSON, read back with `JSONDecoder` (and
/// checked by `validated()`).
///
/// Written by hand rather than with `JSONEncoder`: Foundation's encoder builds a tree of values through keyed
/// containers, 13 µs for a small POST here, and that was the largest part of an enqueue's own cost next to an SQLite
/// commit of about 100 µs (`scripts/bench-queue`). The request has five fields of plain types; this writes them as
/// `JSONEncoder` would (the URL as its absolute string, the body in Base64, absent fields left out), and
/// `StoredRequestJSONTests` decodes what it writes with `JSONDecoder` for strings of every kind.
package enum StoredRequestJSON {
    /// The JSON of `request`.
    /// - Throws: `EncodingError` for a timeout that is not a finite number (JSON has none), as `JSONEncoder` does.
    package static func encode(_ request: OperationArchive.Request) throws -> Data {
        guard request.timeoutInterval.isFinite else { return try JSONEncoder().encode(request) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + request.headers.count * 48)
        bytes.append(UInt8(ascii: "{"))
        if let url = request.url {
            append(#""url":"#, to: &bytes)
            appendString(url.absoluteString, to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        if let method = request.method {
            append(#""method":"#, to: &bytes)
            appendString(method, to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        if let body = request.body {
            append(#""body":""#, to: &bytes)
            append(body.base64EncodedString(), to: &bytes)
            append(#"","#, to: &bytes)
        }
        append(#""timeoutInterval":"#, to: &bytes)
        append("\(request.timeoutInterval)", to: &bytes)
        append(#","headers":{"#, to: &bytes)
        var first = true
        for (name, value) in request.headers {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendString(value, to: &bytes)
        }
        append("}}", to: &bytes)
        return Data(bytes)
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `string` as a JSON string: quoted, with `"`, `\` and the control characters escaped (RFC 8259 §7);
    /// every other byte of its UTF-8 as it is.
    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for unit in string.utf8 {
            switch unit {
            case UInt8(ascii: "\""): append(#"\""#, to: &bytes)
            case UInt8(ascii: "\\"): append(#"\\"#, to: &bytes)
            case UInt8(ascii: "\n"): append(#"\n"#, to: &bytes)
            case UInt8(ascii: "\r"): append(#"\r"#, to: &bytes)
            case UInt8(ascii: "\t"): append(#"\t"#, to: &bytes)
            case 0..<0x20:
                append(#"\u00"#, to: &bytes)
                bytes.append(hexDigits[Int(unit >> 4)])
                bytes.append(hexDigits[Int(unit & 0x0F)])
            default: bytes.append(unit)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
