import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Content decoding against servers nobody here wrote: nginx compressing on the fly (`gzip on`) and serving prepared
/// `.gz` files (`gzip_static on`; see scripts/nginx-test-server), and httpbin's `/gzip` and `/deflate`. nginx's access
/// log shows what went over the wire: the `Accept-Encoding` sent, the `Content-Encoding` answered, the bytes sent.
@Suite(
    "Interop: content decoding (nginx gzip, httpbin)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .timeLimit(.minutes(2))
)
struct ContentDecodingInteropTests {
    static let text = "encoded/text.txt"

    @Test("a session data task receives nginx's gzipped text decoded, equal to the file")
    func sessionDecodesGzipFromNginx() async throws {
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = NginxInterop.probe()
        let (data, response) = try await manager.data(for: NginxInterop.request(Self.text, probe: probe))
        let file = try Data(contentsOf: NginxInterop.servedFile(Self.text))
        #expect(data == file)
        #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.acceptEncoding == "gzip, deflate")
        #expect(line.contentEncoding == "gzip")
        // What crossed the wire is the compressed text, several times smaller than the file.
        #expect(line.bytesSent * 4 < Int64(file.count), "\(line)")
    }

    @Test("an operation decodes too")
    func operationDecodesGzipFromNginx() async throws {
        let probe = NginxInterop.probe()
        let operation = HTTPRequestOperation(request: try NginxInterop.request(Self.text, probe: probe))
        operation.securityPolicy = try NginxInterop.policy()
        OperationQueue().addOperation(operation)
        await operation.finished()
        #expect(operation.error == nil, "\(String(describing: operation.error))")
        #expect(try operation.responseData == Data(contentsOf: NginxInterop.servedFile(Self.text)))
        #expect(try await NginxInterop.accessLog(probe: probe, count: 1).first?.contentEncoding == "gzip")
    }

    @Test("a range request asks for identity and gets the file's own bytes")
    func rangeAsksForIdentity() async throws {
        let transport = try NginxInterop.transport()
        let probe = NginxInterop.probe()
        var request = try NginxInterop.request(Self.text, probe: probe)
        request.setValue("bytes=1000-", forHTTPHeaderField: "Range")
        let result = try await Exchange(request: request, configuration: ExchangeConfiguration(transport: transport)).result()
        try await transport.shutdown()
        #expect(result.response.statusCode == 206)
        #expect(try result.data == Data(contentsOf: NginxInterop.servedFile(Self.text)).dropFirst(1000))
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.acceptEncoding == "identity")
        #expect(line.contentEncoding == nil)
    }

    @Test("two gzip members one after the other decode to the whole text (curl --compressed stops after the first)")
    func gzipMembers() async throws {
        let transport = try NginxInterop.transport()
        let result = try await NginxInterop.exchange(try NginxInterop.url("static-gzip/members.txt"), transport: transport)
        try await transport.shutdown()
        #expect(try result.data == Data(contentsOf: NginxInterop.servedFile("members-expected.txt")))
    }

    @Test("a gzip stream cut in half fails with cannotDecodeContentData")
    func truncatedGzip() async throws {
        let transport = try NginxInterop.transport()
        let error = await #expect(throws: URLError.self) {
            try await NginxInterop.exchange(try NginxInterop.url("static-gzip/truncated.txt"), transport: transport)
        }
        try await transport.shutdown()
        #expect(error?.code == .cannotDecodeContentData)
    }

    @Test("64 MiB of zeros in 64 KiB of gzip is refused as a bomb, with little written to the file")
    func decompressionBombToAFile() async throws {
        let transport = try NginxInterop.transport()
        let file = Fixtures.temporaryFile("bomb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let error = await #expect(throws: URLError.self) {
            try await NginxInterop.exchange(try NginxInterop.url("static-gzip/bomb.bin"), transport: transport) {
                $0.sink = .file(file)
            }
        }
        try await transport.shutdown()
        #expect(error?.code == .cannotDecodeContentData)
        let written = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        #expect(written < 2 << 20, "\(written) bytes written")
    }
}

/// httpbin's compressed echoes through the AFNetworking-style façade.
@Suite(
    "Interop: httpbin /gzip and /deflate",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct HTTPBinContentDecodingTests {
    @Test(arguments: [("gzip", "gzipped"), ("deflate", "deflated")])
    func compressedEchoesReachTheJSONSerializerDecoded(path: String, flag: String) async throws {
        let manager = HTTPSessionManager(baseURL: HTTPBinServer.base)
        manager.completionQueue = SessionFixtures.completionQueue
        defer { manager.invalidateSessionCancelingTasks(true) }
        let (object, response) = try await manager.get(path)
        let json = try #require(object as? [String: Any])
        #expect(json[flag] as? Bool == true)
        #expect((json["headers"] as? [String: Any])?["Accept-Encoding"] as? String == "gzip, deflate")
        #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
    }
}
