import Foundation
import NIOCore
import Testing

@testable import CourierTestServer

@Suite struct MultipartParserTests {
    /// A body with a preamble, a field, an empty part, a binary file containing near-delimiters, and an epilogue.
    static let boundary = "XyZ-boundary"
    static let fileBytes: [UInt8] = Array("\r\n--XyZ-boundar\r\n-\r--XyZ\r\n--XyZ-boundarY".utf8) + (0..<300).map { UInt8($0 % 256) }
    static let body: [UInt8] = {
        var body = Array("preamble to ignore\r\n".utf8)
        body += Array("--XyZ-boundary\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue one\r\n".utf8)
        body += Array("--XyZ-boundary  \r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n".utf8)
        body += Array("--XyZ-boundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a;b.bin\"\r\nContent-Type: application/x-thing\r\n\r\n".utf8)
        body += fileBytes
        body += Array("\r\n--XyZ-boundary--\r\nepilogue\r\n".utf8)
        return body
    }()

    struct Part: Equatable {
        var head: MultipartPartHead
        var data: [UInt8]
    }

    static func parse(_ chunks: [[UInt8]]) throws -> [Part] {
        var parser = try StreamingMultipartParser(boundary: boundary)
        var parts: [Part] = []
        var ended = false
        for chunk in chunks {
            for event in try parser.feed(ByteBuffer(bytes: chunk)) {
                switch event {
                case .partBegin(let head): parts.append(Part(head: head, data: []))
                case .partData(let data): parts[parts.count - 1].data += Array(data.readableBytesView)
                case .partEnd: break
                case .end: ended = true
                }
            }
        }
        try parser.finish()
        #expect(ended)
        return parts
    }

    @Test func parsesWholeBody() throws {
        let parts = try Self.parse([Self.body])
        #expect(parts.count == 3)
        #expect(parts[0].head.name == "field")
        #expect(parts[0].data == Array("value one".utf8))
        #expect(parts[1].head.name == "empty")
        #expect(parts[1].data == [])
        #expect(parts[2].head.name == "file")
        #expect(parts[2].head.filename == "a;b.bin")
        #expect(parts[2].head.contentType == "application/x-thing")
        #expect(parts[2].data == Self.fileBytes)
    }

    @Test func everySplitPositionGivesTheSameParts() throws {
        let expected = try Self.parse([Self.body])
        for split in 0...Self.body.count {
            let parts = try Self.parse([Array(Self.body[..<split]), Array(Self.body[split...])])
            #expect(parts == expected, "split at \(split)")
        }
    }

    @Test func everyTwoSplitPositionsAroundTheFileGiveTheSameParts() throws {
        let expected = try Self.parse([Self.body])
        let count = Self.body.count
        for first in stride(from: 0, through: count, by: 7) {
            for second in first...min(count, first + 60) {
                let chunks = [Array(Self.body[..<first]), Array(Self.body[first..<second]), Array(Self.body[second...])]
                #expect(try Self.parse(chunks) == expected)
            }
        }
    }

    @Test func byteAtATime() throws {
        #expect(try Self.parse(Self.body.map { [$0] }) == Self.parse([Self.body]))
    }

    @Test func truncatedBodyThrows() throws {
        var parser = try StreamingMultipartParser(boundary: Self.boundary)
        _ = try parser.feed(ByteBuffer(bytes: Self.body.prefix(Self.body.count - 20)))
        #expect(throws: StreamingMultipartParser.ParseError.truncated) { try parser.finish() }
    }

    @Test func garbageAfterDelimiterThrows() throws {
        var parser = try StreamingMultipartParser(boundary: "b")
        #expect(throws: StreamingMultipartParser.ParseError.malformedDelimiter) {
            _ = try parser.feed(ByteBuffer(string: "--bXX\r\n"))
        }
    }

    @Test func oversizedHeadersThrow() throws {
        var parser = try StreamingMultipartParser(boundary: "b")
        let huge = "--b\r\nX-Long: " + String(repeating: "a", count: StreamingMultipartParser.maxHeaderBytes + 10)
        #expect(throws: StreamingMultipartParser.ParseError.headersTooLarge) {
            _ = try parser.feed(ByteBuffer(string: huge))
        }
    }

    @Test func invalidBoundaryIsRejected() {
        #expect(throws: StreamingMultipartParser.ParseError.invalidBoundary) {
            try StreamingMultipartParser(boundary: "")
        }
        #expect(throws: StreamingMultipartParser.ParseError.invalidBoundary) {
            try StreamingMultipartParser(boundary: String(repeating: "x", count: 71))
        }
    }

    @Test func extendedFilenameIsDecoded() throws {
        let head = try #require(
            MultipartPartHead(headerBlock: ByteBuffer(string: "Content-Disposition: form-data; name=\"f\"; filename=\"x\"; filename*=UTF-8''%E2%82%AC.txt"))
        )
        #expect(head.filename == "€.txt")
    }
}
