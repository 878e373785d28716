import Synchronization
import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Request bodies on the wire")
struct RequestBodyTests {
    static let payload: Data = {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<(3 * 1024 * 1024 + 17)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }()

    func send(_ body: HTTPRequestBody, method: String = "PUT") async throws -> [String: Any] {
        var request = URLRequest(url: try await Fixtures.url("/anything/body"))
        request.httpMethod = method
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.body = body
        return try Fixtures.json(try await Exchange(request: request, configuration: configuration).result())
    }

    func headers(_ echo: [String: Any]) -> [String: String] {
        (echo["headers"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
    }

    @Test func dataBodyHasExactLength() async throws {
        let echo = try await send(.data(Self.payload))
        #expect(echo["body_sha256"] as? String == Self.payload.sha256Hex)
        #expect(echo["body_size"] as? Int == Self.payload.count)
        #expect(headers(echo)["Content-Length"] == "\(Self.payload.count)")
    }

    @Test func fileBody() async throws {
        let file = Fixtures.temporaryFile()
        try Self.payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let echo = try await send(try .file(file), method: "POST")
        #expect(echo["body_sha256"] as? String == Self.payload.sha256Hex)
        #expect(headers(echo)["Content-Length"] == "\(Self.payload.count)")
    }

    @Test func inputStreamBodyWithAndWithoutLength() async throws {
        let known = try await send(.inputStream(InputStream(data: Self.payload), length: Int64(Self.payload.count)))
        #expect(known["body_sha256"] as? String == Self.payload.sha256Hex)
        #expect(headers(known)["Content-Length"] == "\(Self.payload.count)")

        let chunked = try await send(.inputStream(InputStream(data: Self.payload)))
        #expect(chunked["body_sha256"] as? String == Self.payload.sha256Hex)
        #expect(headers(chunked)["Transfer-Encoding"]?.lowercased() == "chunked")
    }

    @Test func asyncSequenceBody() async throws {
        let chunks = AsyncStream<Data> { continuation in
            var offset = 0
            while offset < Self.payload.count {
                let end = min(offset + 100_000, Self.payload.count)
                continuation.yield(Self.payload[offset..<end])
                offset = end
            }
            continuation.finish()
        }
        let echo = try await send(.asyncSequence(chunks))
        #expect(echo["body_sha256"] as? String == Self.payload.sha256Hex)
        #expect(headers(echo)["Transfer-Encoding"]?.lowercased() == "chunked")
    }

    @Test func urlRequestBodies() async throws {
        let result = try await Fixtures.exchange("/anything", method: "POST", body: Self.payload)
        #expect(try Fixtures.json(result)["body_sha256"] as? String == Self.payload.sha256Hex)
    }

    @Test func uploadProgressIsMonotonicAndEndsAtTheTotal() async throws {
        let steps = Mutex<[TransferProgress]>([])
        _ = try await Fixtures.exchange("/anything", method: "POST", body: Self.payload) { configuration in
            configuration.handlers.uploadProgress = { progress in steps.withLock { $0.append(progress) } }
        }
        let recorded = steps.withLock { $0 }
        #expect(recorded.count > 1)
        #expect(zip(recorded, recorded.dropFirst()).allSatisfy { $0.totalBytes < $1.totalBytes })
        #expect(recorded.last?.totalBytes == Int64(Self.payload.count))
        #expect(recorded.allSatisfy { $0.totalBytesExpected == Int64(Self.payload.count) })
    }

    @Test func missingFileIsAThrownError() {
        #expect { _ = try HTTPRequestBody.file(URL(fileURLWithPath: "/nonexistent/courier")) } throws: {
            ($0 as? URLError)?.code == .fileDoesNotExist
        }
        #expect { _ = try HTTPRequestBody.file(URL(fileURLWithPath: "/tmp")) } throws: {
            ($0 as? URLError)?.code == .fileIsDirectory
        }
    }
}
