import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

@Suite("Multipart forms")
struct MultipartFormTests {
    typealias Support = SerializationTestSupport

    private func boundary(of request: URLRequest) throws -> String {
        let contentType = try #require(request.value(forHTTPHeaderField: "Content-Type"))
        let media = try #require(MediaType(parsing: contentType))
        #expect(media.mimeType == "multipart/form-data")
        return try #require(media.parameters["boundary"])
    }

    private func body(of request: URLRequest, chunk: Int = 7) throws -> Data {
        let stream = try #require(request.httpBodyStream as? MultipartBodyStream)
        let drained = Support.drain(stream, chunk: chunk)
        #expect(!drained.failed)
        return drained.data
    }

    @Test func exactBytesOnTheWire() throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: "https://example.com/upload", parameters: ["name": "Zoë", "tags": ["a"]]
        ) { form in
            form.appendPart(withFileData: Data("hello".utf8), name: "file", fileName: "h.txt", mimeType: "text/plain")
            form.appendPart(withHeaders: ["X-Custom": "1", "Content-Type": "application/octet-stream", "Content-Disposition": "form-data; name=\"raw\""],
                            body: Data([0x00, 0xFF]))
        }
        let boundary = try boundary(of: request)
        #expect(boundary.wholeMatch(of: /Boundary\+[0-9A-F]{16}/) != nil)
        var expected = Data()
        expected.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nZoë".utf8))
        expected.append(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"tags[]\"\r\n\r\na".utf8))
        expected.append(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"h.txt\"\r\nContent-Type: text/plain\r\n\r\nhello".utf8))
        expected.append(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"raw\"\r\nContent-Type: application/octet-stream\r\nX-Custom: 1\r\n\r\n".utf8))
        expected.append(Data([0x00, 0xFF]))
        expected.append(Data("\r\n--\(boundary)--\r\n".utf8))
        let produced = try body(of: request)
        #expect(produced == expected)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == String(expected.count))
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "User-Agent") != nil)
    }

    /// Found by `FuzzMultipart`: a line break in a header given to the form ended the part's header line, and a quote
    /// joined to a combining mark (one `Character`) slipped past the quoting of a file name.
    @Test func noHeaderOrNameCanEndItsLineOrQuoteEarly() throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "https://example.com/upload", parameters: nil) { form in
            form.appendPart(withHeaders: ["X-Note": "a\r\nX-Injected: 1", "Content-Disposition": "form-data; name=\"raw\""], body: Data("x".utf8))
            form.appendPart(withFileData: Data("y".utf8), name: "file", fileName: "a\"\u{64B}; evil=1.txt", mimeType: "text/plain\r\nX-Type: 2")
        }
        let produced = String(decoding: try body(of: request), as: UTF8.self)
        #expect(produced.contains("X-Note: a%0D%0AX-Injected: 1\r\n"), "\(produced.debugDescription)")
        #expect(produced.contains("Content-Type: text/plain%0D%0AX-Type: 2\r\n"), "\(produced.debugDescription)")
        #expect(produced.contains("filename=\"a%22\u{64B}; evil=1.txt\""), "\(produced.debugDescription)")
        #expect(!produced.contains("\r\nX-Injected") && !produced.contains("\r\nX-Type"))
    }

    @Test func contentLengthMatchesTheBytesProducedForEveryReadSize() throws {
        let directory = try Support.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("photo.PNG")
        let fileBytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try fileBytes.write(to: file)
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "PUT", urlString: "https://example.com/u", parameters: nil) { form in
            try form.appendPart(withFileURL: file, name: "photo")
            form.appendPart(withFormData: Data(), name: "empty")
            form.appendPart(with: InputStream(data: Data(repeating: 7, count: 3000)), name: "s", fileName: "s.bin", length: 3000, mimeType: "application/octet-stream")
        }
        let stream = try #require(request.httpBodyStream as? MultipartBodyStream)
        let length = try #require(Int64(request.value(forHTTPHeaderField: "Content-Length") ?? ""))
        #expect(stream.contentLength == length)
        let produced = Support.drain(stream, chunk: 1 << 16)
        #expect(Int64(produced.data.count) == length)
        #expect(produced.data.range(of: Data("Content-Disposition: form-data; name=\"photo\"; filename=\"photo.PNG\"\r\nContent-Type: image/png\r\n\r\n".utf8)) != nil)
        #expect(produced.data.range(of: fileBytes) != nil)
        #expect(stream.streamStatus == .closed)
    }

    @Test func replacementStreamsProduceTheSameBytes() throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "https://example.com/u", parameters: ["a": "1"]) { form in
            form.appendPart(withFileData: Data(repeating: 0x41, count: 10_000), name: "f", fileName: "f", mimeType: "text/plain")
        }
        let original = try #require(request.httpBodyStream as? MultipartBodyStream)
        let first = Support.drain(original, chunk: 1000).data
        let resent = try request.withFreshMultipartBodyStream()
        let fresh = try #require(resent.httpBodyStream as? MultipartBodyStream)
        #expect(fresh !== original)
        #expect(Support.drain(fresh).data == first)
        #expect(resent.value(forHTTPHeaderField: "Content-Length") == String(first.count))
        for chunk in [1, 3, 999, 1 << 20] {
            let again = Support.drain(try original.makeReplacement(), chunk: chunk)
            #expect(again.data == first)
            #expect(again.reads.allSatisfy { $0 <= chunk })
        }
    }

    @Test func streamPartsAreReadThroughAndCannotBeReplayed() throws {
        let payload = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        let form = MultipartForm(boundary: "B")
        form.appendPart(with: InputStream(data: payload), name: "s", fileName: "s.bin", length: Int64(payload.count), mimeType: "application/octet-stream")
        let stream = try form.makeBodyStream()
        let produced = Support.drain(stream, chunk: 4096)
        #expect(!produced.failed)
        let header = Data("--B\r\nContent-Disposition: form-data; name=\"s\"; filename=\"s.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        #expect(produced.data == header + payload + Data("\r\n--B--\r\n".utf8))
        #expect(throws: RequestSerializationError.bodyStreamNotReplayable) { try stream.makeReplacement() }
        #expect(throws: RequestSerializationError.bodyStreamNotReplayable) { try form.makeBodyStream() }
    }

    @Test func aStreamShorterThanAnnouncedFailsTheRead() throws {
        let form = MultipartForm(boundary: "B")
        form.appendPart(with: InputStream(data: Data(count: 10)), name: "s", fileName: "s", length: 20, mimeType: "text/plain")
        let stream = try form.makeBodyStream()
        let produced = Support.drain(stream)
        #expect(produced.failed)
        #expect(stream.streamStatus == .error || stream.streamStatus == .closed)
        #expect(stream.streamError is RequestSerializationError)
    }

    @Test func aFileThatShrinksFailsTheRead() throws {
        let directory = try Support.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data.bin")
        try Data(count: 1000).write(to: file)
        let form = MultipartForm(boundary: "B")
        try form.appendPart(withFileURL: file, name: "f")
        try Data(count: 10).write(to: file)
        let stream = try form.makeBodyStream()
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in pointer.baseAddress.map { stream.read($0, maxLength: 4096) } ?? 0 }
        #expect(count == -1)
        #expect(stream.streamError is RequestSerializationError)
        #expect(!stream.hasBytesAvailable)
    }

    @Test func missingUnreadableOrInvalidFilesFailAtConstruction() throws {
        let directory = try Support.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serializer = HTTPRequestSerializer()
        let missing = directory.appendingPathComponent("missing.txt")
        #expect(throws: RequestSerializationError.self) {
            try serializer.multipartFormRequest(method: "POST", urlString: "https://example.com/u", parameters: nil) { form in
                try form.appendPart(withFileURL: missing, name: "f")
            }
        }
        #expect(throws: RequestSerializationError.self) {
            try serializer.multipartFormRequest(method: "POST", urlString: "https://example.com/u", parameters: nil) { form in
                try form.appendPart(withFileURL: directory, name: "f", fileName: "d", mimeType: "text/plain")
            }
        }
        let remote = try #require(URL(string: "https://example.com/file.txt"))
        #expect(throws: RequestSerializationError.notAFileURL(remote)) {
            try serializer.multipartFormRequest(method: "POST", urlString: "https://example.com/u", parameters: nil) { form in
                try form.appendPart(withFileURL: remote, name: "f")
            }
        }
        // A FIFO cannot be sent as a file part, whoever runs the test (root included, as CI does).
        let fifo = directory.appendingPathComponent("fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0, "mkfifo failed: \(errno)")
        #expect(throws: RequestSerializationError.unreadableFile(fifo, reason: "it is not a regular file")) {
            try MultipartForm().appendPart(withFileURL: fifo, name: "f")
        }
        if getuid() != 0 {  // root reads a file of mode 000 too
            let locked = directory.appendingPathComponent("locked.txt")
            try Data("x".utf8).write(to: locked)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
            #expect(throws: RequestSerializationError.unreadableFile(locked, reason: "it is not readable")) {
                try MultipartForm().appendPart(withFileURL: locked, name: "f")
            }
        }
    }

    @Test(arguments: ["GET", "HEAD", "get"])
    func getAndHeadAreRejected(method: String) {
        #expect(throws: RequestSerializationError.multipartNotAllowed(method: method)) {
            try HTTPRequestSerializer().multipartFormRequest(method: method, urlString: "https://example.com/u", parameters: nil, constructingBodyWith: nil)
        }
    }

    @Test func anEmptyFormLeavesTheRequestWithoutBody() throws {
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "https://example.com/u", parameters: nil, constructingBodyWith: nil)
        #expect(request.httpBodyStream == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func throttlingLimitsReadsAndSlowsTheProducer() throws {
        let form = MultipartForm(boundary: "B")
        form.appendPart(withFileData: Data(repeating: 1, count: 1000), name: "f", fileName: "f", mimeType: "text/plain")
        let total = Int(form.contentLength)
        let unthrottled = Support.drain(try form.makeBodyStream(), chunk: 1 << 16)
        #expect(unthrottled.reads == [total])

        form.throttleBandwidth(withPacketSize: 100, delay: 0.02)
        let start = Date()
        let throttled = Support.drain(try form.makeBodyStream(), chunk: 1 << 16)
        let elapsed = Date().timeIntervalSince(start)
        #expect(throttled.data == unthrottled.data)
        #expect(throttled.reads.allSatisfy { $0 <= 100 })
        let expectedReads = (total + 99) / 100
        #expect(throttled.reads.count == expectedReads)
        #expect(elapsed >= Double(expectedReads) * 0.02 * 0.95, "took \(elapsed) s for \(expectedReads) packets")
    }

    @Test func writingToAFileMatchesTheStreamedBytes() async throws {
        let directory = try Support.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "https://example.com/u", parameters: ["k": "v"]) { form in
            form.appendPart(withFileData: Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }), name: "f", fileName: "f.bin", mimeType: "application/octet-stream")
        }
        let streamed = Support.drain(try #require(request.httpBodyStream as? MultipartBodyStream).makeReplacement()).data
        let target = directory.appendingPathComponent("body.multipart")
        var stripped: URLRequest?
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            stripped = serializer.request(withMultipartFormRequest: request, writingStreamContentsToFile: target) { error in
                continuation.resume(returning: error.map { String(describing: $0) })
            }
        }
        #expect(failure == nil)
        #expect(try Data(contentsOf: target) == streamed)
        #expect(stripped?.httpBodyStream == nil)
        #expect(stripped?.value(forHTTPHeaderField: "Content-Length") == String(streamed.count))
        #expect(serializer.request(withMultipartFormRequest: request, writingStreamContentsToFile: target, completionHandler: nil).httpBodyStream == nil)
    }

    @Test func writingARequestWithoutStreamReportsAnError() async throws {
        let request = URLRequest(url: try #require(Support.url))
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("courier-unused-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        let message = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            _ = HTTPRequestSerializer().request(withMultipartFormRequest: request, writingStreamContentsToFile: target) { error in
                continuation.resume(returning: error.map { String(describing: $0) })
            }
        }
        #expect(message == RequestSerializationError.missingBodyStream.description)
    }

    @Test func mimeTypesFromExtensions() {
        #expect(MIMEType.forPathExtension("JPG") == "image/jpeg")
        #expect(MIMEType.forPathExtension("json") == "application/json")
        #expect(MIMEType.forPathExtension("unknown-ext") == "application/octet-stream")
    }

    @Test func cursorSkipsEmptySegments() {
        var cursor = MultipartBodyCursor(lengths: [0, 3, 0, 0, 2, 0])
        #expect(cursor.segment == 1)
        #expect(cursor.readable(limit: 10) == 3)
        let finishedFirst = cursor.advance(by: 3)
        #expect(finishedFirst)
        #expect(cursor.segment == 4)
        let finishedPartially = cursor.advance(by: 1)
        #expect(!finishedPartially)
        #expect(cursor.readable(limit: 10) == 1)
        let finishedLast = cursor.advance(by: 1)
        #expect(finishedLast)
        #expect(cursor.isAtEnd)
        #expect(cursor.produced == 5)
    }
}
