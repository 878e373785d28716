import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The head of a response whose body `ContentDecodingStage` decodes: it describes the decoded body (no
/// `Content-Encoding`, no `Content-Length`) and remembers the coding the server sent, so that whoever keeps the body's
/// bytes knows they are not the bytes a `Range` counts (RFC 9110 §14.1.2: ranges are of the representation as sent).
///
/// The one place that asks is ``DownloadResumption/init(offset:response:)``: resume data made from a decoded body
/// starts over instead of splicing decoded bytes with encoded ones.
///
/// Foundation's `HTTPURLResponse` is `Sendable` through its own unchecked conformance, which Swift asks a subclass to
/// restate; this one adds a single immutable `let` of a `Sendable` type, so it is exactly as safe as its superclass.
final class DecodedResponseHead: HTTPURLResponse, @unchecked Sendable {
    /// The `Content-Encoding` the server sent (`gzip`, `deflate`), which the body no longer has.
    let sentContentCoding: String

    init?(url: URL, statusCode: Int, httpVersion: String, headerFields: [String: String], decodedContentCoding: String) {
        sentContentCoding = decodedContentCoding
        super.init(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
    }

    /// Not archived: a decoded head is made by the stage, never read from an archive.
    required init?(coder: NSCoder) {
        nil
    }
}

extension HTTPURLResponse {
    /// The content coding the body was decoded from on its way to the caller, or `nil` when the body is the bytes as
    /// sent.
    var decodedContentCoding: String? {
        (self as? DecodedResponseHead)?.sentContentCoding
    }
}
