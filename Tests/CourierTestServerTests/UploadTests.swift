import AsyncHTTPClient
import CourierTestServer
import Foundation
import NIOCore
import Testing

@Suite struct UploadTests {
    @Test func uploadReportsEveryPart() async throws {
        try await withServer { (server, client) async throws in
            var multipart = MultipartBuilder()
            let image = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 17) })
            multipart.field("note", "hello")
            multipart.file("image", filename: "pic.png", type: "image/png", contents: image)
            multipart.file("empty", filename: "empty.txt", type: "text/plain", contents: Data())
            let body = multipart.finished()
            let response = try await client.fetch(
                server, "/upload", method: .POST, headers: [("Content-Type", multipart.contentType)], body: .bytes(body))
            #expect(response.status == 200)
            let parts = try #require(response.json["parts"] as? [[String: Any]])
            #expect(parts.count == 3)
            #expect(parts[0]["name"] as? String == "note")
            #expect(parts[0]["filename"] is NSNull)
            #expect(parts[0]["size"] as? Int == 5)
            #expect(parts[0]["sha256"] as? String == sha256Hex(Data("hello".utf8)))
            #expect(parts[1]["filename"] as? String == "pic.png")
            #expect(parts[1]["content_type"] as? String == "image/png")
            #expect(parts[1]["size"] as? Int == image.count)
            #expect(parts[1]["sha256"] as? String == sha256Hex(image))
            #expect(parts[2]["size"] as? Int == 0)
            #expect(response.json["body_size"] as? Int == body.count)
        }
    }

    @Test func largeStreamedUploadInSmallOddChunks() async throws {
        try await withServer { (server, client) async throws in
            // 24 MiB file streamed in 4,093-byte chunks so delimiters and headers straddle chunk edges.
            let boundary = "stream-boundary-\(UUID().uuidString)"
            let head = ByteBuffer(string: "--\(boundary)\r\nContent-Disposition: form-data; name=\"big\"; filename=\"big.bin\"\r\n\r\n")
            let tail = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
            let fileSize = 24 << 20
            let block = ByteBuffer(bytes: (0..<4093).map { UInt8(truncatingIfNeeded: $0 &* 101 &+ 7) })
            var fileHash = SHA256Stream()
            var remaining = fileSize
            var chunks: [ByteBuffer] = [head]
            while remaining > 0 {
                let piece = block.getSlice(at: 0, length: min(remaining, block.readableBytes)) ?? ByteBuffer()
                fileHash.update(piece)
                chunks.append(piece)
                remaining -= piece.readableBytes
            }
            chunks.append(tail)
            let total = chunks.reduce(0) { $0 + $1.readableBytes }
            let sequence = AsyncStream<ByteBuffer> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
            let response = try await client.fetch(
                server, "/upload", method: .POST,
                headers: [("Content-Type", "multipart/form-data; boundary=\"\(boundary)\"")],
                body: .stream(sequence, length: .known(Int64(total))))
            let parts = try #require(response.json["parts"] as? [[String: Any]])
            #expect(parts.count == 1)
            #expect(parts.first?["size"] as? Int == fileSize)
            #expect(parts.first?["sha256"] as? String == fileHash.hex)
            #expect(response.json["body_size"] as? Int == total)
        }
    }

    @Test func malformedMultipartIs400() async throws {
        try await withServer { (server, client) async throws in
            let truncated = try await client.fetch(
                server, "/upload", method: .POST,
                headers: [("Content-Type", "multipart/form-data; boundary=abc")],
                body: .bytes(Data("--abc\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end".utf8)))
            #expect(truncated.status == 400)
            let notMultipart = try await client.fetch(
                server, "/upload", method: .POST, headers: [("Content-Type", "text/plain")], body: .bytes(Data("x".utf8)))
            #expect(notMultipart.status == 415)
        }
    }
}
