import Foundation
import Hummingbird
import NIOCore

/// A request body interpreted the way httpbin reports it: `form` for url-encoded and multipart
/// fields, `files` for multipart files (name, size, SHA-256 instead of contents), `json` when the
/// body parses as JSON, and `data` for the raw text.
struct RequestContent {
    var data = ""
    var form: [(name: String, value: String)] = []
    var files: JSONValue = [:]
    var json: JSONValue = .null
    var bodySize = 0
    var bodySHA256 = ""

    /// Reads the whole body: multipart is streamed in constant memory; other bodies are hashed
    /// as they stream and kept for parsing only up to ``BodyLimits/maxParsedBody``.
    static func read(_ request: Request) async throws -> RequestContent {
        var content = RequestContent()
        let contentType = request.headers[.contentType]
        if let boundary = MultipartSummary.boundary(contentType: contentType) {
            let summary = try await MultipartSummary.read(request.body, boundary: boundary)
            var files: [(name: String, value: JSONValue)] = []
            for part in summary.parts {
                if part.filename == nil, let value = part.fieldValue {
                    content.form.append((part.name ?? "", String(decoding: value.readableBytesView, as: UTF8.self)))
                } else {
                    files.append((part.name ?? "", filesEntry(part)))
                }
            }
            content.files = JSONValue.grouping(files)
            content.bodySize = summary.body.size
            content.bodySHA256 = summary.body.hexDigest()
            return content
        }
        let body = try await BodySummary.read(request.body, keepingUpTo: BodyLimits.maxParsedBody)
        content.bodySize = body.size
        content.bodySHA256 = body.sha256
        let isForm = contentType.map { HeaderParameters.parse($0).token == "application/x-www-form-urlencoded" } ?? false
        guard let bytes = body.bytes else {
            if isForm { throw HTTPError(.contentTooLarge, message: "form body larger than \(BodyLimits.maxParsedBody) bytes") }
            return content
        }
        let raw = Data(bytes.readableBytesView)
        if isForm {
            guard let text = String(data: raw, encoding: .utf8), let pairs = FormDecoding.pairs(Substring(text)) else {
                throw Responses.badRequest("invalid application/x-www-form-urlencoded body")
            }
            content.form = pairs
            return content
        }
        if let text = String(data: raw, encoding: .utf8) {
            content.data = text
        } else {
            content.data = "data:application/octet-stream;base64," + raw.base64EncodedString()
        }
        content.json = raw.isEmpty ? .null : (JSONValue.parse(raw) ?? .null)
        return content
    }

    private static func filesEntry(_ part: MultipartPartSummary) -> JSONValue {
        [
            "filename": part.filename.map(JSONValue.string) ?? .null,
            "content_type": part.contentType.map(JSONValue.string) ?? .null,
            "size": .integer(part.size),
            "sha256": .string(part.sha256),
        ]
    }
}
