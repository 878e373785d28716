import AsyncHTTPClient
import CourierTestServer
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@Suite struct EchoTests {
    @Test func getEchoesArgsHeadersOriginAndURL() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/get?a=1&b=two%20words&a=3", headers: [("X-Custom", "yes")])
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            let json = response.json
            let args = try #require(json["args"] as? [String: Any])
            #expect(args["a"] as? [String] == ["1", "3"])
            #expect(args["b"] as? String == "two words")
            let headers = try #require(json["headers"] as? [String: String])
            #expect(headers["X-Custom"] == "yes")
            #expect(headers["Host"] == "127.0.0.1:\(server.port)")
            #expect(json["origin"] as? String == "127.0.0.1")
            #expect(json["url"] as? String == "http://127.0.0.1:\(server.port)/get?a=1&b=two%20words&a=3")
        }
    }

    @Test func postJSONIsParsedAndHashed() async throws {
        try await withServer { (server, client) async throws in
            let body = Data(#"{"name":"courier","n":3,"ok":true,"list":[1,2]}"#.utf8)
            let response = try await client.fetch(
                server, "/post", method: .POST, headers: [("Content-Type", "application/json")], body: .bytes(body))
            let json = response.json
            let parsed = try #require(json["json"] as? [String: Any])
            #expect(parsed["name"] as? String == "courier")
            #expect(parsed["n"] as? Int == 3)
            #expect(parsed["ok"] as? Bool == true)
            #expect(json["data"] as? String == String(decoding: body, as: UTF8.self))
            #expect(json["body_size"] as? Int == body.count)
            #expect(json["body_sha256"] as? String == sha256Hex(body))
            #expect(json["method"] == nil)
        }
    }

    @Test func urlEncodedFormIsReportedInForm() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(
                server, "/put", method: .PUT,
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: .bytes(Data("a=1&b=hello+world&c=%F0%9F%93%A6&a=2".utf8)))
            let form = try #require(response.json["form"] as? [String: Any])
            #expect(form["a"] as? [String] == ["1", "2"])
            #expect(form["b"] as? String == "hello world")
            #expect(form["c"] as? String == "📦")
            #expect(response.json["data"] as? String == "")
        }
    }

    @Test func multipartFilesAreReportedByNameSizeAndHash() async throws {
        try await withServer { (server, client) async throws in
            var multipart = MultipartBuilder()
            let fileA = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            multipart.field("title", "Report")
            multipart.file("upload", filename: "a.bin", contents: fileA)
            let body = multipart.finished()
            let response = try await client.fetch(
                server, "/anything/x/y?z=1", method: .PATCH,
                headers: [("Content-Type", multipart.contentType)], body: .bytes(body))
            #expect(response.status == 200)
            let json = response.json
            #expect(json["method"] as? String == "PATCH")
            #expect((json["form"] as? [String: Any])?["title"] as? String == "Report")
            let file = try #require((json["files"] as? [String: Any])?["upload"] as? [String: Any])
            #expect(file["filename"] as? String == "a.bin")
            #expect(file["size"] as? Int == fileA.count)
            #expect(file["sha256"] as? String == sha256Hex(fileA))
            #expect(json["body_size"] as? Int == body.count)
            #expect(json["body_sha256"] as? String == sha256Hex(body))
        }
    }

    @Test func binaryBodyIsADataURL() async throws {
        try await withServer { (server, client) async throws in
            let body = Data([0xFF, 0x00, 0xFE, 0x80])
            let response = try await client.fetch(server, "/anything", method: .POST, body: .bytes(body))
            #expect(response.json["data"] as? String == "data:application/octet-stream;base64,/wD+gA==")
            #expect(response.json["json"] is NSNull)
        }
    }

    @Test func anythingAcceptsEveryMethod() async throws {
        try await withServer { (server, client) async throws in
            for method in [HTTPMethod.GET, .POST, .PUT, .PATCH, .DELETE, .OPTIONS] {
                let response = try await client.fetch(server, "/anything/\(method.rawValue)", method: method)
                #expect(response.status == 200)
                #expect(response.json["method"] as? String == method.rawValue)
            }
            let head = try await client.fetch(server, "/anything", method: .HEAD)
            #expect(head.status == 200)
            #expect(head.body.readableBytes == 0)
        }
    }

    @Test func malformedQueryIsA400WithJSONError() async throws {
        try await withServer { (server, client) async throws in
            // Sent raw: URL(string:) would re-encode the stray percent sign.
            let response = try await rawHTTP(port: server.port, "GET /get?a=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            #expect(response.contains(#"{"error":{"message":"#))
            _ = client
        }
    }

    @Test func expectContinueGetsAnInterimResponse() async throws {
        try await withServer { (server, client) async throws in
            let response = try await rawHTTP(
                port: server.port,
                "POST /post HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nExpect: 100-continue\r\nConnection: close\r\n\r\nabc")
            #expect(response.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
            #expect(response.contains(#""data" : "abc""#))
            _ = client
        }
    }

    @Test func headersUserAgentAndIP() async throws {
        try await withServer { (server, client) async throws in
            let headers = try await client.fetch(server, "/headers", headers: [("X-Test", "1")])
            #expect((headers.json["headers"] as? [String: String])?["X-Test"] == "1")
            let agent = try await client.fetch(server, "/user-agent", headers: [("User-Agent", "Courier/1.0")])
            #expect(agent.json["user-agent"] as? String == "Courier/1.0")
            let ip = try await client.fetch(server, "/ip")
            #expect(ip.json["origin"] as? String == "127.0.0.1")
        }
    }

    @Test func echoStreamsTheBodyBack() async throws {
        try await withServer { (server, client) async throws in
            let body = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            let response = try await client.fetch(
                server, "/echo", method: .PUT, headers: [("Content-Type", "application/x-test")], body: .bytes(body))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/x-test")
            #expect(response.header("content-length") == String(body.count))
            #expect(response.data == body)
        }
    }

    @Test func largeStreamedUploadIsHashedExactly() async throws {
        try await withServer { (server, client) async throws in
            // 40 MiB, above the parse cap: hashed while streaming, `data` left empty.
            let chunk = ByteBuffer(bytes: (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            let chunks = Array(repeating: chunk, count: 40)
            var expected = SHA256Stream()
            for piece in chunks { expected.update(piece) }
            let response = try await client.fetch(
                server, "/post", method: .POST,
                body: .stream(AsyncStream { continuation in
                    for piece in chunks { continuation.yield(piece) }
                    continuation.finish()
                }, length: .known(Int64(40 << 20))))
            #expect(response.json["body_size"] as? Int == 40 << 20)
            #expect(response.json["body_sha256"] as? String == expected.hex)
            #expect(response.json["data"] as? String == "")
        }
    }
}

/// Incremental SHA-256 for test-side hashing of streamed bodies.
struct SHA256Stream {
    private var hasher = Crypto.SHA256()
    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
    }
    var hex: String { hasher.finalize().map { String(format: "%02x", $0) }.joined() }
}
