import Foundation
import FuzzDriver

/// libFuzzer entry point: the input describes a `multipart/form-data` form — the boundary (Courier's random one or
/// a given one), a throttle, and up to eight parts of the four kinds `MultipartFormData` appends (form fields, file
/// data, parts with arbitrary headers, input streams that may announce more or fewer bytes than they hold), with any
/// text in names, file names, MIME types and header fields — built by `MultipartForm` and read through
/// `MultipartBodyStream` in reads of fuzzed sizes.
///
/// Checks that the stream produces exactly `contentLength` bytes (or fails with the documented error when a stream
/// part ends early), that a replacement stream produces the same bytes, and, with a minimal multipart reader written
/// here, that the body splits back into exactly the parts given: the same header fields in the documented order,
/// names and file names quoted with `"`, CR and LF escaped (`%0D`, `%0A`) in every header name and value so that
/// none breaks its line, the same body bytes. The split is checked whenever the boundary is a valid RFC 2046 boundary that no part's body
/// contains, nor starts with, and no header line holds (with Courier's random boundary, always).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    var reader = FuzzInput(start, count: count, maximumChunk: 0x3F)
    let flags = reader.byte() ?? 0
    // The size of every read of the body (0: 4096 bytes).
    let readSize = Int(reader.byte() ?? 0)

    let form: MultipartForm
    if flags & 1 == 0 {
        form = MultipartForm()
        precondition(isCourierBoundary(form.boundary), "a random boundary of another form: \(form.boundary)")
    } else {
        form = MultipartForm(boundary: reader.text())
    }
    precondition(form.contentType == "multipart/form-data; boundary=" + form.boundary, "another Content-Type")
    if flags & 2 != 0 {
        form.throttleBandwidth(withPacketSize: Int(reader.byte() ?? 0) % 40, delay: 0)
    }

    var expected: [ExpectedPart] = []
    var streamFallsShort = false
    var readsStream = false
    while expected.count < 8, let kind = reader.byte() {
        switch kind % 4 {
        case 0:
            let name = reader.text()
            let data = Data(reader.chunk())
            form.appendPart(withFormData: data, name: name)
            expected.append(ExpectedPart(headers: [("Content-Disposition", disposition(name: name, fileName: nil))], body: data))
        case 1:
            let (name, fileName, mimeType, data) = (reader.text(), reader.text(), reader.text(), Data(reader.chunk()))
            form.appendPart(withFileData: data, name: name, fileName: fileName, mimeType: mimeType)
            expected.append(ExpectedPart(headers: [("Content-Disposition", disposition(name: name, fileName: fileName)), ("Content-Type", mimeType)], body: data))
        case 2:
            var headers: [String: String] = [:]
            for _ in 0..<Int(reader.byte() ?? 0) % 4 {
                headers[reader.text()] = reader.text()
            }
            let body = Data(reader.chunk())
            form.appendPart(withHeaders: headers, body: body)
            let ordered = headers.sorted { lhs, rhs in
                rank(lhs.key) == rank(rhs.key) ? lhs.key < rhs.key : rank(lhs.key) < rank(rhs.key)
            }
            expected.append(ExpectedPart(headers: ordered.map { ($0.key, $0.value) }, body: body))
        default:
            let (name, fileName, mimeType, data) = (reader.text(), reader.text(), reader.text(), Data(reader.chunk()))
            // The announced length: exact, fewer bytes than the stream holds, or more (the read must then fail).
            let mode = Int(reader.byte() ?? 0) % 3
            let length = mode == 0 ? data.count : mode == 1 ? data.count / 2 : data.count + 1
            streamFallsShort = streamFallsShort || mode == 2
            // A stream announced empty is never opened, so it does not stop a replacement.
            readsStream = readsStream || length > 0
            form.appendPart(with: InputStream(data: data), name: name, fileName: fileName, length: Int64(length), mimeType: mimeType)
            expected.append(ExpectedPart(headers: [("Content-Disposition", disposition(name: name, fileName: fileName)), ("Content-Type", mimeType)],
                                         body: data.prefix(length)))
        }
    }
    precondition(form.isEmpty == expected.isEmpty, "isEmpty is wrong")

    let stream: MultipartBodyStream
    do {
        stream = try form.makeBodyStream()
    } catch {
        preconditionFailure("a fresh form refused its body stream: \(error)")
    }
    precondition(stream.contentLength == form.contentLength, "the stream and the form disagree on the length")
    guard let body = readAll(stream, size: readSize == 0 ? 4096 : readSize) else {
        precondition(streamFallsShort, "the body stream failed without a part falling short")
        guard case .multipartPartShorterThanAnnounced? = stream.streamError as? RequestSerializationError else {
            preconditionFailure("a short part failed with another error: \(String(describing: stream.streamError))")
        }
        return 0
    }
    precondition(!streamFallsShort, "a stream part that fell short went unnoticed")
    precondition(Int64(body.count) == form.contentLength, "\(body.count) bytes produced, \(form.contentLength) announced")

    // A replacement exists only while no stream part has been read; it gives the same bytes.
    do {
        let replacement = try stream.makeReplacement()
        precondition(!readsStream, "a replacement of a body whose stream part was read")
        precondition(readAll(replacement, size: 4096) == body, "a replacement with other bytes")
    } catch {
        precondition(readsStream, "no replacement for a body whose stream parts were not read: \(error)")
    }

    guard !expected.isEmpty else {
        precondition(body.isEmpty, "bytes for an empty form")
        return 0
    }
    let delimiter = Array("\r\n--\(form.boundary)".utf8)
    // A boundary the caller chose may collide with the data (Courier's never does): a body, or a header line, that
    // contains `CRLF--B` or starts with `--B` (which makes a delimiter with the CRLF before it). Such forms are not
    // split back; every line is checked with a CRLF in front.
    let collides = expected.contains { part in
        contains([0x0D, 0x0A] + Array(part.body), delimiter) || part.headers.contains { field in
            contains([0x0D, 0x0A] + Array((escapedLineBreaks(field.name) + ": " + escapedLineBreaks(field.value)).utf8), delimiter)
        }
    }
    guard isValidBoundary(form.boundary), !collides else { return 0 }
    guard let parts = split(body, delimiter: delimiter) else {
        preconditionFailure("a body that is not multipart")
    }
    precondition(parts.count == expected.count, "\(parts.count) parts read back, \(expected.count) given")
    for (part, given) in zip(parts, expected) {
        precondition(part.body == Array(given.body), "a part's body changed")
        precondition(part.headerLines.count == given.headers.count, "a header field broken into other lines (or lost)")
        for (line, field) in zip(part.headerLines, given.headers) {
            precondition(!line.contains(0x0D) && !line.contains(0x0A), "a CR or LF inside a header line")
            // CR and LF are escaped as in names (`%0D`, `%0A`); everything else is written as given.
            let text = String(decoding: line, as: UTF8.self)
            precondition(text == escapedLineBreaks(field.name) + ": " + escapedLineBreaks(field.value),
                         "header \(text.debugDescription), given \(field.name.debugDescription): \(field.value.debugDescription)")
        }
    }
    return 0
}

/// A part as given: its header fields in the order the form documents, and its body.
private struct ExpectedPart {
    let headers: [(name: String, value: String)]
    let body: Data
}

/// `Content-Disposition` of a form field or file, as documented: `"` becomes `%22`, CR `%0D`, LF `%0A`.
private func disposition(name: String, fileName: String?) -> String {
    var value = "form-data; name=\"\(quoted(name))\""
    if let fileName { value += "; filename=\"\(quoted(fileName))\"" }
    return value
}

/// Escapes scalar by scalar, so a quote, CR or LF that is part of a larger character (`\r\n`, a quote with a
/// combining mark) is escaped as well.
private func quoted(_ text: String) -> String {
    escapedLineBreaks(text, quote: true)
}

/// `text` with CR written `%0D`, LF `%0A` (and `"` written `%22` when `quote`), scalar by scalar.
private func escapedLineBreaks(_ text: String, quote: Bool = false) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"" where quote: result += "%22"
        case "\r": result += "%0D"
        case "\n": result += "%0A"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// The order of `appendPart(withHeaders:body:)`: `Content-Disposition`, `Content-Type`, then the others by name.
private func rank(_ name: String) -> Int {
    switch name.lowercased() {
    case "content-disposition": return 0
    case "content-type": return 1
    default: return 2
    }
}

/// `Boundary+` and 16 uppercase hexadecimal digits.
private func isCourierBoundary(_ boundary: String) -> Bool {
    guard boundary.hasPrefix("Boundary+") else { return false }
    let digits = boundary.utf8.dropFirst(9)
    return digits.count == 16 && digits.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) }
}

/// RFC 2046 §5.1.1: 1 to 70 characters of `bchars`, not ending in a space.
private func isValidBoundary(_ boundary: String) -> Bool {
    let allowed = Set(Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8))
    let bytes = Array(boundary.utf8)
    return (1...70).contains(bytes.count) && bytes.allSatisfy(allowed.contains) && bytes.last != UInt8(ascii: " ")
}

/// Whether `bytes` contains `pattern`.
private func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
    index(of: pattern, in: bytes, from: 0) != nil
}

private func index(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard !pattern.isEmpty, bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
    for position in start...(bytes.count - pattern.count) where bytes[position] == pattern[0] {
        if bytes[position..<(position + pattern.count)].elementsEqual(pattern) { return position }
    }
    return nil
}

/// A part as read back: its header lines (without their CRLF) and its body.
private struct ReadPart {
    var headerLines: [[UInt8]]
    var body: [UInt8]
}

/// A minimal multipart reader: `--B CRLF`, then per part header lines ending in CRLF, an empty line, the body, and
/// `CRLF --B` before the next part, `CRLF --B-- CRLF` at the end. `nil` when the body does not have that shape.
private func split(_ body: [UInt8], delimiter: [UInt8]) -> [ReadPart]? {
    let crlf: [UInt8] = [0x0D, 0x0A]
    // With a CRLF in front, every delimiter (the first one included) is `CRLF --B`.
    let text = crlf + body
    var starts: [Int] = []
    var position = 0
    while let found = index(of: delimiter, in: text, from: position) {
        starts.append(found)
        position = found + delimiter.count
    }
    guard starts.first == 0, let last = starts.last, Array(text[(last + delimiter.count)...]) == Array("--\r\n".utf8) else { return nil }
    var parts: [ReadPart] = []
    for (index, partStart) in starts.dropLast().enumerated() {
        let content = Array(text[(partStart + delimiter.count)..<starts[index + 1]])
        guard content.starts(with: crlf) else { return nil }
        var cursor = 2
        var lines: [[UInt8]] = []
        while true {
            guard cursor + 2 <= content.count else { return nil }
            if content[cursor] == 0x0D, content[cursor + 1] == 0x0A {
                cursor += 2
                break
            }
            var end = cursor
            while end + 1 < content.count, !(content[end] == 0x0D && content[end + 1] == 0x0A) { end += 1 }
            guard end + 1 < content.count else { return nil }
            lines.append(Array(content[cursor..<end]))
            cursor = end + 2
        }
        parts.append(ReadPart(headerLines: lines, body: Array(content[cursor...])))
    }
    return parts
}

/// Everything `stream` produces, read in chunks of `size` bytes, or `nil` when a read fails.
private func readAll(_ stream: InputStream, size: Int) -> [UInt8]? {
    stream.open()
    defer { stream.close() }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
            guard let base = pointer.baseAddress else { return -1 }
            return stream.read(base, maxLength: size)
        }
        if count < 0 { return nil }
        precondition(count <= size, "a read beyond its buffer")
        if count == 0 {
            precondition(!stream.hasBytesAvailable, "no bytes read, yet bytes available")
            return result
        }
        result += buffer[0..<count]
        precondition(result.count <= 1 << 20, "a body that does not end")
    }
}
