import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionManager.bytes(for:body:interceptors:)`: a request body streamed from an async sequence, and the
/// session's interceptors (then the call's own) applied, as for its tasks.
@Suite("Sessions: bytes(for:body:interceptors:)")
struct StreamedBytesTests {
    @Test func anAsyncSequenceBodyIsStreamedAndTheResponseStreamsBack() async throws {
        let manager = SessionFixtures.manager()
        let chunks = (0..<5).map { Data(String(repeating: "\($0)", count: 30_000).utf8) }
        let body = HTTPRequestBody.asyncSequence(AsyncStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        })
        let (response, stream) = try await manager.bytes(for: try await SessionFixtures.request("/anything", method: "POST"), body: body)
        #expect(response.statusCode == 200)
        let echo = try SessionFixtures.json(try await stream.collect())
        #expect(echo["body_size"] as? Int == 150_000)
        #expect(echo["body_sha256"] as? String == chunks.reduce(Data(), +).sha256Hex)
        let headers = try #require(echo["headers"] as? [String: Any])
        #expect(headers["Transfer-Encoding"] as? String == "chunked", "\(headers)")
    }

    @Test func theSessionsInterceptorsRunBeforeTheCallsOwn() async throws {
        func adapter(_ value: String) -> Adapter {
            Adapter { request, _ in
                var request = request
                let previous = request.value(forHTTPHeaderField: "X-Adapters").map { $0 + "," } ?? ""
                request.setValue(previous + value, forHTTPHeaderField: "X-Adapters")
                return request
            }
        }
        let manager = SessionFixtures.manager { $0.interceptors = [adapter("session")] }
        let (_, stream) = try await manager.bytes(for: try await SessionFixtures.request("/headers"), interceptors: [adapter("call")])
        let headers = try #require(try SessionFixtures.json(try await stream.collect())["headers"] as? [String: Any])
        #expect(headers["X-Adapters"] as? String == "session,call", "\(headers)")
    }
}
