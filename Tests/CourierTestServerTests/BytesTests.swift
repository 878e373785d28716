import AsyncHTTPClient
import CourierTestServer
import Foundation
import NIOCore
import Testing

/// Serialized so the 1 GiB transfer does not skew the timing tests next to it.
@Suite(.serialized) struct BytesTests {
    @Test func bytesAreDeterministicWithASeed() async throws {
        try await withServer { (server, client) async throws in
            let first = try await client.fetch(server, "/bytes/200000?seed=42")
            let second = try await client.fetch(server, "/bytes/200000?seed=42")
            let other = try await client.fetch(server, "/bytes/200000?seed=43")
            #expect(first.status == 200)
            #expect(first.header("content-length") == "200000")
            #expect(first.header("content-type") == "application/octet-stream")
            #expect(first.data.count == 200_000)
            #expect(first.data == second.data)
            #expect(first.data != other.data)
            #expect(first.data == TestPayload.bytes(count: 200_000, seed: 42))
            // A shorter body is a prefix of a longer one.
            let short = try await client.fetch(server, "/bytes/1000?seed=42")
            #expect(short.data == first.data.prefix(1000))
            // Not a short repeating pattern.
            #expect(first.data.prefix(65_536) != first.data.dropFirst(65_536).prefix(65_536))
        }
    }

    @Test func bytesWithoutSeedDiffer() async throws {
        try await withServer { (server, client) async throws in
            let first = try await client.fetch(server, "/bytes/64")
            let second = try await client.fetch(server, "/bytes/64")
            #expect(first.data.count == 64)
            #expect(first.data != second.data)
        }
    }

    @Test func bytesRejectsBadInput() async throws {
        try await withServer { (server, client) async throws in
            #expect(try await client.fetch(server, "/bytes/-1").status == 400)
            #expect(try await client.fetch(server, "/bytes/abc").status == 400)
            #expect(try await client.fetch(server, "/bytes/10?seed=x").status == 400)
        }
    }

    @Test func oneGibibyteIsServedQuickly() async throws {
        try await withServer { (server, client) async throws in
            let count = 1 << 30
            let start = ContinuousClock.now
            let request = HTTPClientRequest(url: server.baseURL.absoluteString + "/bytes/\(count)?seed=7")
            let response = try await client.execute(request, timeout: .seconds(120))
            #expect(response.headers.first(name: "content-length") == String(count))
            var received = 0
            for try await buffer in response.body { received += buffer.readableBytes }
            let elapsed = ContinuousClock.now - start
            #expect(received == count)
            #expect(elapsed < .seconds(20), "1 GiB took \(elapsed)")
            print("1 GiB /bytes in \(elapsed)")
        }
    }

    @Test func hugeContentLengthIsAdvertised() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/bytes/\(5 << 30)", method: .HEAD)
            #expect(response.status == 200)
            #expect(response.header("content-length") == String(5 << 30))
        }
    }

    @Test func streamBytesIsChunkedAndMatchesBytes() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/stream-bytes/100000?seed=9&chunk_size=1000")
            #expect(response.status == 200)
            #expect(response.header("transfer-encoding") == "chunked")
            #expect(response.header("content-length") == nil)
            #expect(response.data == TestPayload.bytes(count: 100_000, seed: 9))
        }
    }

    @Test func dripSpreadsBytesOverTheDuration() async throws {
        try await withServer { (server, client) async throws in
            let start = ContinuousClock.now
            let response = try await client.fetch(server, "/drip?duration=1&numbytes=5&delay=0.3&code=201")
            let elapsed = ContinuousClock.now - start
            #expect(response.status == 201)
            #expect(response.text == "*****")
            #expect(response.header("content-length") == "5")
            // The last byte completes the body: 0.3 s delay + 4 pauses of 0.2 s.
            #expect(elapsed >= .milliseconds(1050))
            #expect(elapsed < .seconds(5))
        }
    }

    @Test func delayWaitsThenEchoes() async throws {
        try await withServer { (server, client) async throws in
            let start = ContinuousClock.now
            let response = try await client.fetch(server, "/delay/0.5?x=1")
            #expect(ContinuousClock.now - start >= .milliseconds(500))
            #expect(response.status == 200)
            #expect((response.json["args"] as? [String: String])?["x"] == "1")
            #expect(try await client.fetch(server, "/delay/abc").status == 400)
        }
    }

    @Test func abortClosesTheConnectionMidBody() async throws {
        try await withServer { (server, client) async throws in
            let request = HTTPClientRequest(url: server.baseURL.absoluteString + "/abort/1000?total=5000")
            let response = try await client.execute(request, timeout: .seconds(10))
            #expect(response.headers.first(name: "content-length") == "5000")
            var received = 0
            await #expect(throws: (any Error).self) {
                for try await buffer in response.body { received += buffer.readableBytes }
            }
            #expect(received == 1000)
            // The server still answers afterwards.
            #expect(try await client.fetch(server, "/get").status == 200)
        }
    }

    @Test func slowBodySendsHeadersThenStalls() async throws {
        try await withServer { (server, client) async throws in
            let start = ContinuousClock.now
            let request = HTTPClientRequest(url: server.baseURL.absoluteString + "/slow-body/10?delay=3")
            let response = try await client.execute(request, timeout: .seconds(10))
            let headArrived = ContinuousClock.now
            #expect(response.headers.first(name: "content-length") == "10")
            let body = try await response.body.collect(upTo: 100)
            let bodyArrived = ContinuousClock.now
            #expect(bodyArrived - start >= .seconds(3))
            #expect(bodyArrived - headArrived >= .milliseconds(1500))
            #expect(String(buffer: body) == "abcdefghij")
        }
    }
}
