import AsyncHTTPClient
import CourierTestServer
import Foundation
import Testing

@Suite struct RangeTests {
    static let length = 1000
    static let full = TestPayload.rangeContent(count: length)

    @Test func fullResponseHasETagAndAcceptRanges() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/range/1000")
            #expect(response.status == 200)
            #expect(response.header("etag") == "\"range-1000\"")
            #expect(response.header("accept-ranges") == "bytes")
            #expect(response.header("content-length") == "1000")
            #expect(response.data == Self.full)
            #expect(response.text.hasPrefix("abcdefghijklmnopqrstuvwxyzabc"))
        }
    }

    @Test(arguments: [
        ("bytes=0-0", 0, 0),
        ("bytes=10-19", 10, 19),
        ("bytes=990-5000", 990, 999),
        ("bytes=500-", 500, 999),
        ("bytes=999-", 999, 999),
        ("bytes=-1", 999, 999),
        ("bytes=-100", 900, 999),
        ("bytes=-5000", 0, 999),
    ])
    func satisfiableRanges(header: String, first: Int, last: Int) async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/range/1000", headers: [("Range", header)])
            #expect(response.status == 206)
            #expect(response.header("content-range") == "bytes \(first)-\(last)/1000")
            #expect(response.header("content-length") == String(last - first + 1))
            #expect(response.header("etag") == "\"range-1000\"")
            #expect(response.data == Self.full[first...last])
        }
    }

    @Test(arguments: ["bytes=1000-", "bytes=1000-2000", "bytes=-0"])
    func unsatisfiableRanges(header: String) async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/range/1000", headers: [("Range", header)])
            #expect(response.status == 416)
            #expect(response.header("content-range") == "bytes */1000")
            #expect(response.header("etag") == "\"range-1000\"")
            #expect(response.body.readableBytes == 0)
        }
    }

    @Test(arguments: ["bytes=5-2", "items=0-1", "bytes=abc", "bytes=0-1,5-6", "bytes=", "bytes=--1"])
    func ignoredRangesGiveTheFullBody(header: String) async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/range/1000", headers: [("Range", header)])
            #expect(response.status == 200)
            #expect(response.data == Self.full)
        }
    }

    @Test func ifRangeHonoursOnlyAMatchingETag() async throws {
        try await withServer { (server, client) async throws in
            let matching = try await client.fetch(
                server, "/range/1000", headers: [("Range", "bytes=10-19"), ("If-Range", "\"range-1000\"")])
            #expect(matching.status == 206)
            #expect(matching.data == Self.full[10...19])
            let changed = try await client.fetch(
                server, "/range/1000?etag=v2", headers: [("Range", "bytes=10-19"), ("If-Range", "\"range-1000\"")])
            #expect(changed.status == 200)
            #expect(changed.header("etag") == "\"v2\"")
            #expect(changed.data == Self.full)
        }
    }

    @Test func ignoreRangeSimulatesAServerWithoutRanges() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/range/1000?ignore_range=1", headers: [("Range", "bytes=10-19")])
            #expect(response.status == 200)
            #expect(response.header("accept-ranges") == nil)
            #expect(response.data == Self.full)
        }
    }

    @Test func emptyAndHugeRanges() async throws {
        try await withServer { (server, client) async throws in
            let empty = try await client.fetch(server, "/range/0", headers: [("Range", "bytes=-1")])
            #expect(empty.status == 416)
            #expect(empty.header("content-range") == "bytes */0")
            let offset = (3 << 30) + 5
            let tail = try await client.fetch(server, "/range/\(4 << 30)", headers: [("Range", "bytes=\(offset)-\(offset + 51)")])
            #expect(tail.status == 206)
            #expect(tail.header("content-range") == "bytes \(offset)-\(offset + 51)/\(4 << 30)")
            let letters = Array("abcdefghijklmnopqrstuvwxyz")
            #expect(tail.text == String((offset...(offset + 51)).map { letters[$0 % 26] }))
        }
    }
}
