import Foundation
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: ResumptionRestartStage against StubTransport")
struct ResumptionRestartStageTests {
    static let whole = Data("0123456789".utf8)

    @Test func aRangeThatFitsContinuesTheKeptBytes() async throws {
        let stub = StubTransport(StubResponse(statusCode: 206, headers: [("ETag", "\"v1\""), ("Content-Range", "bytes 4-9/10")], body: .data(Self.whole.dropFirst(4))))
        let result = try await StageTests.exchange("/file", over: stub) {
            $0.resumption = DownloadResumption(offset: 4, entityTag: "\"v1\"")
        }.result()
        #expect(result.resumption == .continued(from: 4))
        #expect(result.data == Self.whole.dropFirst(4))
        #expect(stub.requests.count == 1)
        #expect(stub.requests[0].value(forHTTPHeaderField: "Range") == "bytes=4-")
        #expect(stub.requests[0].value(forHTTPHeaderField: "If-Range") == "\"v1\"")
    }

    @Test func aRangeThatDoesNotFitIsAskedForOnceMoreWhole() async throws {
        let stub = StubTransport { request in
            request.value(forHTTPHeaderField: "Range") != nil
                ? StubResponse(statusCode: 206, headers: [("ETag", "\"v1\""), ("Content-Range", "bytes 0-9/10")], body: .data(Self.whole))
                : StubResponse(headers: [("ETag", "\"v2\"")], body: .data(Self.whole))
        }
        let result = try await StageTests.exchange("/file", over: stub) {
            $0.resumption = DownloadResumption(offset: 4, entityTag: "\"v1\"")
        }.result()
        #expect(result.resumption == .restarted)
        #expect(result.data == Self.whole)
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "Range") } == ["bytes=4-", nil])
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "If-Range") } == ["\"v1\"", nil])
    }
}
