import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Character sets against a server nobody here wrote: nginx serves files that Python's codecs encoded as
/// `text/plain; charset=<name>` (its `charset` directive; see scripts/nginx-test-server), for UTF-16 with and without
/// a BOM, ISO-8859-1…16, windows-1250…1258, KOI8-R, Shift_JIS, EUC-JP, ISO-2022-JP, GB18030, GBK, GB2312, Big5,
/// EUC-KR, registry aliases of some of them, an unknown charset and a truncated Shift_JIS body.
/// `charset/manifest.json` holds Python's decoding of each file (the reference) or the error expected.
@Suite(
    "Interop: character sets (nginx charset, Python codecs)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .timeLimit(.minutes(2))
)
struct CharsetInteropTests {
    /// One file of `charset/manifest.json`.
    struct Entry: Decodable, CustomStringConvertible {
        /// The file under nginx's root.
        let path: String
        /// The charset nginx names in the Content-Type.
        let charset: String
        /// The Python codec that wrote (and decoded) the bytes.
        let codec: String
        /// Python's decoding of the bytes; nil when an error is expected.
        let expected: String?
        /// `unsupportedCharset` or `undecodableText`, or nil.
        let error: String?

        var description: String { "\(path) (charset=\(charset), Python codec \(codec))" }
    }

    static func manifest() throws -> [Entry] {
        let entries = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: NginxInterop.servedFile("charset/manifest.json")))
        try #require(entries.count >= 40)
        return entries
    }

    /// Checks `text`, or the error thrown instead, against `entry`.
    static func check(_ entry: Entry, _ decode: () throws -> String?, via: String) {
        do {
            let text = try decode()
            #expect(entry.error == nil, "\(via): \(entry) decoded, expected \(entry.error ?? "")")
            #expect(text == entry.expected, "\(via): \(entry) differs from Python's decoding")
        } catch let error as ResponseSerializationError {
            switch (error, entry.error) {
            case (.unsupportedCharset(let name, _, _), "unsupportedCharset"):
                #expect(name == entry.charset)
            case (.undecodableText, "undecodableText"):
                break
            default:
                Issue.record("\(via): \(entry) failed with \(error)")
            }
        } catch {
            Issue.record("\(via): \(entry) failed with \(error)")
        }
    }

    @Test("an operation's responseString (and decodeResponseString) decodes each file as Python does")
    func operationResponseString() async throws {
        let entries = try Self.manifest()
        let operations = try entries.map { entry in
            let operation = HTTPRequestOperation(request: try NginxInterop.request(entry.path))
            operation.securityPolicy = try NginxInterop.policy()
            return operation
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        for operation in operations { queue.addOperation(operation) }
        for operation in operations { await operation.finished() }
        for (entry, operation) in zip(entries, operations) {
            #expect(operation.error == nil, "\(entry): \(String(describing: operation.error))")
            let contentType = operation.response?.value(forHTTPHeaderField: "Content-Type")
            #expect(contentType == "text/plain; charset=\(entry.charset)", "\(entry)")
            Self.check(entry, { try operation.decodeResponseString() }, via: "operation")
            #expect(operation.responseString == entry.expected, "\(entry)")
            if entry.error == nil {
                #expect(operation.responseStringEncoding == CharsetDecoding.encoding(forCharset: entry.charset), "\(entry)")
            } else if entry.error == "unsupportedCharset" {
                #expect(operation.responseStringEncoding == .utf8, "\(entry)")
            }
        }
    }

    @Test("a session data task's body through HTTPResponseSerializer.string(for:data:) decodes each file as Python does")
    func sessionStringSerializer() async throws {
        let entries = try Self.manifest()
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let serializer = HTTPResponseSerializer()
        for entry in entries {
            let (data, response) = try await manager.data(for: NginxInterop.request(entry.path))
            #expect(try data == Data(contentsOf: NginxInterop.servedFile(entry.path)), "\(entry)")
            Self.check(entry, { try serializer.string(for: response, data: data) }, via: "session")
        }
    }
}
