import Hummingbird
import NIOCore

/// A multipart part reduced to what the server reports: name, filename, type, size and SHA-256,
/// plus the value of small text fields.
struct MultipartPartSummary {
    let name: String?
    let filename: String?
    let contentType: String?
    let size: Int
    let sha256: String
    /// The part's bytes for parts without a filename, when no larger than ``MultipartSummary/maxFieldBytes``.
    let fieldValue: ByteBuffer?

    /// The JSON object reported by `/upload`.
    var json: JSONValue {
        [
            "name": name.map(JSONValue.string) ?? .null,
            "filename": filename.map(JSONValue.string) ?? .null,
            "content_type": contentType.map(JSONValue.string) ?? .null,
            "size": .integer(size),
            "sha256": .string(sha256),
        ]
    }
}

/// Reads a whole multipart body as a stream, in constant memory (files are hashed, not kept).
struct MultipartSummary {
    /// Field values larger than this are reported like files.
    static let maxFieldBytes = 1024 * 1024

    let parts: [MultipartPartSummary]
    /// Size and SHA-256 of the raw request body.
    let body: BodyDigest

    /// The `boundary` parameter of a `multipart/*` content type, or `nil` when it is not multipart.
    static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let parsed = HeaderParameters.parse(contentType)
        guard parsed.token.hasPrefix("multipart/") else { return nil }
        return parsed.parameters["boundary"]
    }

    /// Streams `body` through the parser; invalid multipart becomes a 400 error.
    static func read(_ body: RequestBody, boundary: String) async throws -> MultipartSummary {
        var parser: StreamingMultipartParser
        do {
            parser = try StreamingMultipartParser(boundary: boundary)
        } catch {
            throw Responses.badRequest("invalid multipart boundary")
        }
        var collector = Collector()
        var bodyDigest = BodyDigest()
        do {
            for try await chunk in body {
                bodyDigest.update(chunk)
                for event in try parser.feed(chunk) {
                    collector.consume(event)
                }
            }
            try parser.finish()
        } catch let error as StreamingMultipartParser.ParseError {
            throw Responses.badRequest("malformed multipart body: \(error)")
        }
        return MultipartSummary(parts: collector.parts, body: bodyDigest)
    }

    /// Turns parser events into part summaries.
    struct Collector {
        private(set) var parts: [MultipartPartSummary] = []
        private var head: MultipartPartHead?
        private var digest = BodyDigest()
        private var value: ByteBuffer?

        mutating func consume(_ event: StreamingMultipartParser.Event) {
            switch event {
            case .partBegin(let head):
                self.head = head
                digest = BodyDigest()
                value = head.filename == nil ? ByteBuffer() : nil
            case .partData(let data):
                digest.update(data)
                if var buffer = value {
                    value = nil
                    if buffer.readableBytes + data.readableBytes <= MultipartSummary.maxFieldBytes {
                        var data = data
                        buffer.writeBuffer(&data)
                        value = buffer
                    }
                }
            case .partEnd:
                parts.append(
                    MultipartPartSummary(
                        name: head?.name,
                        filename: head?.filename,
                        contentType: head?.contentType,
                        size: digest.size,
                        sha256: digest.hexDigest(),
                        fieldValue: value
                    )
                )
                head = nil
                value = nil
            case .end:
                break
            }
        }
    }
}
