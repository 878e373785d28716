import Crypto
import Foundation
import Testing
@testable import courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pure parts of `courier batch` and `courier download`: the batch file format, the summary
/// table and the integrity headers.
@Suite("CLI batch files, summaries and integrity headers", .timeLimit(.minutes(1)))
struct CLIBatchAndIntegrityTests {
    let directory = URL(fileURLWithPath: "/tmp/out")

    @Test func batchLinesGiveURLsAndOutputs() throws {
        let batch = try BatchFile(parsing: "# comment\n\nhttp://h/a/file.bin\r\nhttps://h/b\tnamed.txt\nhttp://h/\t/abs/x\n  \n", directory: directory)
        #expect(batch.entries.map(\.line) == [3, 4, 5])
        #expect(batch.entries.map(\.url.absoluteString) == ["http://h/a/file.bin", "https://h/b", "http://h/"])
        #expect(batch.entries.map(\.output.path) == ["/tmp/out/file.bin", "/tmp/out/named.txt", "/abs/x"])
        let root = try BatchFile(parsing: "http://h/", directory: directory)
        #expect(root.entries.first?.output.path == "/tmp/out/index.html")
    }

    @Test(arguments: [
        ("http://h/a\nftp://h/b", 2, "not an http or https URL: ftp://h/b"),
        ("http://h/a\tx\ty", 1, "expected URL or URL<TAB>output, found 3 tab-separated fields"),
        ("http://h/a\t", 1, "empty output after the tab"),
        ("http://h/a\nhttp://h/b\ta", 2, "/tmp/out/a is already the output of line 1; name the output after a tab"),
    ])
    func malformedBatchLinesAreNamed(text: String, line: Int, reason: String) {
        #expect(throws: BatchFile.Malformed(line: line, reason: reason)) {
            try BatchFile(parsing: text, directory: directory)
        }
    }

    @Test func theSummaryTableAlignsColumnsAndCountsFailures() throws {
        let results = [
            BatchResult(url: try #require(URL(string: "http://h/long/path")), status: 200, bytes: 1234, seconds: 0.25, output: URL(fileURLWithPath: "/o/a"), failure: nil),
            BatchResult(url: try #require(URL(string: "http://h/x")), status: 404, bytes: 0, seconds: 0.04, output: nil, failure: "HTTP 404"),
            BatchResult(url: try #require(URL(string: "http://h:1/y")), status: nil, bytes: 0, seconds: 0, output: nil, failure: "refused"),
        ]
        #expect(BatchReport.table(results) == """
        URL                 STATUS  BYTES  TIME   OUTPUT
        http://h/long/path  200     1234   0.2 s  /o/a
        http://h/x          404     0      0.0 s  -
        http://h:1/y        error   0      0.0 s  -
        1 of 3 downloads succeeded, 2 failed
        """)
        #expect(BatchReport.resultLine(results[0]) == "ok    200  1.21 KiB  0.2 s  http://h/long/path -> /o/a")
        #expect(BatchReport.resultLine(results[2]) == "FAIL  ---  http://h:1/y: refused")
    }

    @Test func aFinishedFileRecordLineReadsBackAsWritten() throws {
        let awkward = "/tmp/out/a \"quoted\" \\ back/slash\n\t\u{1}é😀"
        for (url, output, modified) in [("https://h/plain.bin", "/tmp/out/plain.bin", 1_732_881_234.5), ("https://h/x?a=\"b\"", awkward, 0),
                                        ("https://h/é", awkward, 1_732_881_234.123_456_7), ("https://h/y", awkward, 1e16), ("https://h/z", "/o/z", -2.5),
                                        ("https://h/w", "/o/w", 1.0 / 3)] {
            let entry = BatchFinishedFiles.Entry(url: url, output: output, saved: output + ".1", size: 42, modified: modified)
            let line = entry.jsonLine()
            #expect(try JSONDecoder().decode(BatchFinishedFiles.Entry.self, from: line) == entry)
            #expect(try JSONSerialization.jsonObject(with: line) is [String: Any])
            #expect(!line.contains(UInt8(ascii: "\n")))
        }
    }

    @Test func outputsAreStandardizedOnlyWhereANameNeedsIt() throws {
        let batch = try BatchFile(parsing: "http://h/1\ta/./b\nhttp://h/2\tc/../d\nhttp://h/3\te//f\nhttp://h/4\t/abs/../g\nhttp://h/5\t.hidden\nhttp://h/6\tsub/x.bin", directory: directory)
        #expect(batch.entries.map(\.output.path) == ["/tmp/out/a/b", "/tmp/out/d", "/tmp/out/e/f", "/g", "/tmp/out/.hidden", "/tmp/out/sub/x.bin"])
        #expect(throws: BatchFile.Malformed.self) { try BatchFile(parsing: "http://h/1\tq\nhttp://h/2\t./q", directory: directory) }
    }

    static func response(_ status: Int, _ headers: [String: String]) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "http://h/f"))
        return try #require(HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers))
    }

    @Test func integrityHeadersAreReadForTheirScope() throws {
        let sha = Data(repeating: 1, count: 32).base64EncodedString()
        let md5 = Data(repeating: 2, count: 16).base64EncodedString()
        let full = IntegrityCheck(response: try Self.response(200, ["Content-Length": "10", "Repr-Digest": "unknown=:AA==:, sha-256=:\(sha):", "Content-MD5": md5]))
        #expect(full.expectedSize == 10)
        #expect(full.digests == [
            .init(header: "Repr-Digest", algorithm: .sha256, expected: Data(repeating: 1, count: 32), from: 0),
            .init(header: "Content-MD5", algorithm: .md5, expected: Data(repeating: 2, count: 16), from: 0),
        ])
        let part = IntegrityCheck(response: try Self.response(206, ["Content-Length": "4", "Content-Range": "bytes 6-9/10", "Content-Digest": "sha-512=:\(sha):", "Content-MD5": md5]))
        #expect(part.expectedSize == 10)
        #expect(part.digests.map(\.from) == [6, 6])
        #expect(part.digests.map(\.algorithm) == [.sha512, .md5])
        let complete = IntegrityCheck(response: try Self.response(416, ["Content-Range": "bytes */10"]))
        #expect(complete.expectedSize == 10 && complete.digests.isEmpty)
        #expect(IntegrityCheck.structuredDigests("sha-256=:not base64!:, md5=:AA==:").isEmpty)
        #expect(IntegrityCheck(response: try Self.response(200, ["Content-MD5": "short"])).digests.isEmpty)
    }

    /// Found by `FuzzIntegrityHeader`: these once gave a start past the total, a negative total or a start read from
    /// `-5`, so a download promised a size or a digest range that cannot exist.
    @Test(arguments: ["bytes 649/10", "bytes */-1", "bytes -5-9/10", "bytes 6-9/9", "bytes 9-6/10", "bytes +6-9/10", "bytes 6-9/1 0", "bytes 6-9/"])
    func aMalformedContentRangeIsNoPromise(value: String) {
        #expect(IntegrityCheck.contentRange(value) == nil)
    }

    @Test func aWellFormedContentRangeIsRead() {
        #expect(IntegrityCheck.contentRange("bytes 6-9/10").map { [$0.start, $0.total] } == [6, 10])
        #expect(IntegrityCheck.contentRange(" bytes */10 ").map { [$0.start, $0.total] } == [nil, 10])
    }

    @Test func verificationComparesSizeThenEachDigestOverItsRange() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-integrity-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("0123456789".utf8).write(to: file)
        let wholeSHA = try IntegrityCheck.hash(file, from: 0, algorithm: .sha256)
        let tailMD5 = try IntegrityCheck.hash(file, from: 6, algorithm: .md5)
        #expect(wholeSHA.base64EncodedString() == Data("0123456789".utf8).sha256Base64)
        let good = IntegrityCheck(response: try Self.response(206, [
            "Content-Range": "bytes 6-9/10", "Repr-Digest": "sha-256=:\(wholeSHA.base64EncodedString()):", "Content-MD5": tailMD5.base64EncodedString(),
        ]))
        #expect(try good.verify(file) == ["size 10", "Repr-Digest sha-256", "Content-MD5 md5"])
        let short = IntegrityCheck(response: try Self.response(200, ["Content-Length": "11"]))
        #expect(throws: IntegrityCheck.Mismatch(message: "size 10 bytes, but the server announced 11")) { try short.verify(file) }
        let wrong = IntegrityCheck(response: try Self.response(200, ["Content-MD5": tailMD5.base64EncodedString()]))
        #expect(throws: IntegrityCheck.Mismatch.self) { try wrong.verify(file) }
    }
}

private extension Data {
    var sha256Base64: String {
        Data(Crypto.SHA256.hash(data: self)).base64EncodedString()
    }
}
