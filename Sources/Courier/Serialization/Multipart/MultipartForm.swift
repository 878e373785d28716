import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The multipart form being built by a `constructingBodyWith` block: Courier's
/// ``MultipartFormData``.
///
/// Appending a part records where its bytes come from and how many there are; nothing is read
/// until the body stream is. Files are checked when appended (exists, regular, readable), so a
/// bad file fails the request before anything is sent.
public final class MultipartForm: MultipartFormData {
    /// The boundary between parts (`Boundary+` and 16 uppercase hexadecimal digits by default).
    public let boundary: String
    /// The encoding form field values from parameters are written in. Default: UTF-8.
    public let stringEncoding: String.Encoding

    private(set) var parts: [MultipartPart] = []
    private var throttle = MultipartThrottle()

    /// Creates an empty form. Default boundary: a random ``makeBoundary()``.
    public init(boundary: String = MultipartForm.makeBoundary(), stringEncoding: String.Encoding = .utf8) {
        self.boundary = boundary
        self.stringEncoding = stringEncoding
    }

    /// A random boundary: `Boundary+` followed by 16 uppercase hexadecimal digits.
    public static func makeBoundary() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16, uppercase: true)
        return "Boundary+" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `multipart/form-data; boundary=<boundary>`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Whether no part has been appended.
    public var isEmpty: Bool { parts.isEmpty }

    /// The exact length of the body, in bytes.
    public var contentLength: Int64 { MultipartBodyLayout(boundary: boundary, parts: parts).contentLength }

    /// A new stream producing the whole body from the start.
    ///
    /// - Throws: ``RequestSerializationError/bodyStreamNotReplayable`` when an `InputStream`
    ///   part has already been opened.
    public func makeBodyStream() throws -> MultipartBodyStream {
        for part in parts {
            if case .stream(let stream) = part.source, stream.streamStatus != .notOpen {
                throw RequestSerializationError.bodyStreamNotReplayable
            }
        }
        return MultipartBodyStream(layout: MultipartBodyLayout(boundary: boundary, parts: parts), throttle: throttle)
    }

    // MARK: MultipartFormData

    /// Appends a file part named after the file, with a MIME type inferred from its extension.
    public func appendPart(withFileURL fileURL: URL, name: String) throws {
        try appendPart(withFileURL: fileURL, name: name, fileName: fileURL.lastPathComponent,
                       mimeType: MIMEType.forPathExtension(fileURL.pathExtension))
    }

    /// Appends a file part with an explicit file name and MIME type.
    public func appendPart(withFileURL fileURL: URL, name: String, fileName: String, mimeType: String) throws {
        let length = try Self.readableFileLength(fileURL)
        append(name: name, fileName: fileName, mimeType: mimeType, source: .file(fileURL), length: length)
    }

    /// Appends a part read from `inputStream`, which must produce exactly `length` bytes.
    public func appendPart(with inputStream: InputStream, name: String, fileName: String, length: Int64, mimeType: String) {
        append(name: name, fileName: fileName, mimeType: mimeType, source: .stream(inputStream), length: max(0, length))
    }

    /// Appends a file part whose content is `data`.
    public func appendPart(withFileData data: Data, name: String, fileName: String, mimeType: String) {
        append(name: name, fileName: fileName, mimeType: mimeType, source: .data(data), length: Int64(data.count))
    }

    /// Appends a plain form field.
    public func appendPart(withFormData data: Data, name: String) {
        let headers = [(name: "Content-Disposition", value: MultipartPart.contentDisposition(name: name))]
        parts.append(MultipartPart(headers: headers, source: .data(data), length: Int64(data.count)))
    }

    /// Appends a part with the given headers (`Content-Disposition` first, `Content-Type`
    /// second, the others by name) and body.
    public func appendPart(withHeaders headers: [String: String]?, body: Data) {
        let rank: (String) -> Int = { name in
            switch name.lowercased() {
            case "content-disposition": return 0
            case "content-type": return 1
            default: return 2
            }
        }
        let ordered = (headers ?? [:]).sorted { lhs, rhs in
            rank(lhs.key) == rank(rhs.key) ? lhs.key < rhs.key : rank(lhs.key) < rank(rhs.key)
        }
        parts.append(MultipartPart(headers: ordered.map { (name: $0.key, value: $0.value) }, source: .data(body), length: Int64(body.count)))
    }

    /// Limits each read of the body to `numberOfBytes` (at least 1) and pauses `delay` seconds
    /// after each read.
    public func throttleBandwidth(withPacketSize numberOfBytes: Int, delay: TimeInterval) {
        throttle = MultipartThrottle(packetSize: max(1, numberOfBytes), delay: max(0, delay))
    }

    // MARK: Building

    private func append(name: String, fileName: String, mimeType: String, source: MultipartPartSource, length: Int64) {
        let headers = [
            (name: "Content-Disposition", value: MultipartPart.contentDisposition(name: name, fileName: fileName)),
            (name: "Content-Type", value: mimeType),
        ]
        parts.append(MultipartPart(headers: headers, source: source, length: length))
    }

    /// The size of a regular, readable file.
    static func readableFileLength(_ url: URL) throws -> Int64 {
        guard url.isFileURL else { throw RequestSerializationError.notAFileURL(url) }
        guard let status = FileStatus(path: url.path) else {
            throw RequestSerializationError.unreadableFile(url, reason: "it does not exist or cannot be examined")
        }
        guard status.kind == .regular else {
            throw RequestSerializationError.unreadableFile(url, reason: "it is not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw RequestSerializationError.unreadableFile(url, reason: "it is not readable")
        }
        return status.size
    }

    /// `request` with this form as its body: `Content-Type`, exact `Content-Length` and a
    /// ``MultipartBodyStream`` in `httpBodyStream`. An empty form leaves the request unchanged.
    func finalizing(_ request: URLRequest) throws -> URLRequest {
        guard !parts.isEmpty else { return request }
        var request = request
        let stream = try makeBodyStream()
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.setValue(String(stream.contentLength), forHTTPHeaderField: "Content-Length")
        request.httpBodyStream = stream
        return request
    }
}
