import Synchronization
import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Multipart uploads against the test server")
struct MultipartUploadIntegrationTests {
    @Test func partsArriveWithMatchingSizesAndDigests() async throws {
        let file = Fixtures.temporaryFile("upload.bin")
        let fileBytes = Data((0..<(5 << 20) + 123).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try fileBytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let inline = Data("inline ✓ data".utf8)

        let url = try await Fixtures.url("/upload").absoluteString
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: url, parameters: ["note": "hello"]) { form in
            try form.appendPart(withFileURL: file, name: "file")
            form.appendPart(withFileData: inline, name: "inline", fileName: "inline.txt", mimeType: "text/plain")
        }
        let declaredLength = try #require(request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) })

        let sent = Atomic<Int64>(0)
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.handlers.uploadProgress = { sent.store($0.totalBytes, ordering: .relaxed) }
        let result = try await Exchange(request: request, configuration: configuration).result()
        #expect(result.response.statusCode == 200)
        let echo = try Fixtures.json(result)
        let parts = try #require(echo["parts"] as? [[String: Any]])

        func part(_ name: String) -> [String: Any]? { parts.first { $0["name"] as? String == name } }
        #expect(part("file")?["size"] as? Int == fileBytes.count)
        #expect(part("file")?["sha256"] as? String == fileBytes.sha256Hex)
        #expect(part("file")?["filename"] as? String == "upload.bin".replacingOccurrences(of: "upload.bin", with: file.lastPathComponent))
        #expect(part("inline")?["sha256"] as? String == inline.sha256Hex)
        #expect(part("note")?["size"] as? Int == 5)
        #expect(echo["body_size"] as? Int64 ?? Int64(echo["body_size"] as? Int ?? -1) == declaredLength)
        #expect(sent.load(ordering: .relaxed) == declaredLength, "upload progress ends at the exact Content-Length")
    }

    @Test func multipartBodyIsReplayedAcrossA307() async throws {
        let target = "/upload".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let url = try await Fixtures.url("/redirect-to?url=\(target)&status_code=307").absoluteString
        let payload = Data(repeating: 0x5A, count: 300_000)
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: url, parameters: nil) { form in
            form.appendPart(withFileData: payload, name: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
        }
        let result = try await Exchange(request: request, configuration: .init(transport: Fixtures.transport)).result()
        #expect(result.redirectCount == 1)
        let parts = try #require(try Fixtures.json(result)["parts"] as? [[String: Any]])
        #expect(parts.first?["sha256"] as? String == payload.sha256Hex)
    }
}
