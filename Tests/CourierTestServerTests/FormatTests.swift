import AsyncHTTPClient
import CourierTestServer
import Foundation
import Testing

@Suite struct FormatTests {
    @Test func documents() async throws {
        try await withServer { (server, client) async throws in
            let json = try await client.fetch(server, "/json")
            #expect(json.header("content-type") == "application/json")
            #expect((json.json["slideshow"] as? [String: Any])?["title"] as? String == "Sample Slide Show")
            let xml = try await client.fetch(server, "/xml")
            #expect(xml.header("content-type") == "application/xml")
            #expect(xml.text.contains("<slideshow"))
            let html = try await client.fetch(server, "/html")
            #expect(html.header("content-type") == "text/html; charset=utf-8")
            #expect(html.text.contains("<h1>"))
            #expect(try await client.fetch(server, "/encoding/utf8").text.contains("日本語"))
        }
    }

    @Test func imagesHaveTheirSignatures() async throws {
        try await withServer { (server, client) async throws in
            let png = try await client.fetch(server, "/image/png")
            #expect(png.header("content-type") == "image/png")
            #expect(png.data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(png.data.suffix(8).prefix(4) == Data("IEND".utf8))
            let jpeg = try await client.fetch(server, "/image/jpeg")
            #expect(jpeg.header("content-type") == "image/jpeg")
            #expect(jpeg.data.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
            #expect(jpeg.data.suffix(2) == Data([0xFF, 0xD9]))
            let gif = try await client.fetch(server, "/image/gif")
            #expect(gif.data.prefix(6) == Data("GIF89a".utf8))
            #expect(try await client.fetch(server, "/image/svg").text.contains("<svg"))
            let negotiated = try await client.fetch(server, "/image", headers: [("Accept", "image/jpeg")])
            #expect(negotiated.header("content-type") == "image/jpeg")
            #expect(try await client.fetch(server, "/image", headers: [("Accept", "text/plain")]).status == 406)
        }
    }

    @Test func compressedBodiesInflate() async throws {
        try await withServer { (server, client) async throws in
            let rawGzip = try await client.fetch(server, "/gzip")
            #expect(rawGzip.header("content-encoding") == "gzip")
            #expect(rawGzip.data.prefix(2) == Data([0x1F, 0x8B]))
            let rawDeflate = try await client.fetch(server, "/deflate")
            #expect(rawDeflate.header("content-encoding") == "deflate")
            #expect(rawDeflate.data.first == 0x78)
        }
        // A client with zlib decompression turns them back into JSON.
        try await withServer(decompression: true) { (server, client) async throws in
            let gzip = try await client.fetch(server, "/gzip")
            #expect(gzip.json["gzipped"] as? Bool == true)
            #expect(gzip.json["method"] as? String == "GET")
            let deflate = try await client.fetch(server, "/deflate")
            #expect(deflate.json["deflated"] as? Bool == true)
        }
    }
}
