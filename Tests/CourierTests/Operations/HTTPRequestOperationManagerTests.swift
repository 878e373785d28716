import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A JSON object handed across threads; the tests only read it.
struct JSONBox: @unchecked Sendable {
    let object: [String: Any]?
}

@Suite("HTTPRequestOperationManager", .timeLimit(.minutes(1)))
struct HTTPRequestOperationManagerTests {
    private func manager() async throws -> HTTPRequestOperationManager {
        let server = try await Fixtures.plainServer.value
        let manager = HTTPRequestOperationManager(baseURL: server.baseURL.appendingPathComponent("anything"))
        manager.transport = Fixtures.transport
        return manager
    }

    @Test("the base URL gains a trailing slash; relative paths resolve against it")
    func baseURL() async throws {
        let manager = try await manager()
        #expect(manager.baseURL?.absoluteString.hasSuffix("/anything/") == true)
        #expect(manager.responseSerializer is JSONResponseSerializer)
        // The reachability manager watches the base URL's host (127.0.0.1 here) and is already monitoring.
        let reachability = try #require(manager.reachabilityManager)
        #expect(reachability !== NetworkReachabilityManager.shared)
        #expect(await eventually { reachability.networkReachabilityStatus == .reachableViaWiFi },
                "\(reachability.networkReachabilityStatus)")
        #expect(HTTPRequestOperationManager().reachabilityManager === NetworkReachabilityManager.shared)
    }

    @Test("every verb is enqueued and reaches /anything with its parameters", arguments: ["GET", "POST", "PUT", "PATCH", "DELETE"])
    func verbs(method: String) async throws {
        let manager = try await manager()
        let result = Mutex<JSONBox?>(nil)
        let success: @Sendable (HTTPRequestOperation, Any?) -> Void = { _, object in
            result.withLock { $0 = JSONBox(object: object as? [String: Any]) }
        }
        let failure: @Sendable (HTTPRequestOperation?, any Error) -> Void = { _, error in
            Issue.record("\(method) failed: \(error)")
            result.withLock { $0 = JSONBox(object: nil) }
        }
        let parameters = ["name": "courier", "n": "1"]
        let operation: HTTPRequestOperation? = switch method {
        case "GET": manager.GET("items", parameters: parameters, success: success, failure: failure)
        case "POST": manager.POST("items", parameters: parameters, success: success, failure: failure)
        case "PUT": manager.PUT("items", parameters: parameters, success: success, failure: failure)
        case "PATCH": manager.PATCH("items", parameters: parameters, success: success, failure: failure)
        default: manager.DELETE("items", parameters: parameters, success: success, failure: failure)
        }
        #expect(operation != nil)
        #expect(await eventually { result.withLock { $0 != nil } })
        let json = try #require(result.withLock { $0?.object })
        #expect(json["method"] as? String == method)
        #expect((json["url"] as? String)?.contains("/anything/items") == true)
        let fields = (method == "GET" || method == "DELETE") ? json["args"] : json["form"]
        let values = try #require(fields as? [String: Any])
        #expect(values["name"] as? String == "courier")
    }

    @Test("HEAD succeeds without a body")
    func head() async throws {
        let manager = try await manager()
        let done = Atomic<Int>(0)
        let operation = manager.HEAD("items", parameters: nil, success: { operation in
            done.store(operation.response?.statusCode ?? -1, ordering: .releasing)
        }, failure: { _, error in
            Issue.record("HEAD failed: \(error)")
            done.store(-1, ordering: .releasing)
        })
        #expect(await eventually { done.load(ordering: .acquiring) != 0 })
        #expect(done.load(ordering: .acquiring) == 200)
        #expect(operation?.request.httpMethod == "HEAD")
    }

    @Test("multipart POST to /upload: every part arrives intact")
    func multipart() async throws {
        let manager = try await manager()
        let payload = TestPayload.bytes(count: 200_000, seed: 11)
        let result = Mutex<JSONBox?>(nil)
        manager.POST("/upload", parameters: ["title": "report"], constructingBodyWith: { form in
            form.appendPart(withFileData: payload, name: "file", fileName: "data.bin", mimeType: "application/octet-stream")
        }, success: { _, object in
            result.withLock { $0 = JSONBox(object: object as? [String: Any]) }
        }, failure: { _, error in
            Issue.record("upload failed: \(error)")
            result.withLock { $0 = JSONBox(object: nil) }
        })
        #expect(await eventually { result.withLock { $0 != nil } })
        let json = try #require(result.withLock { $0?.object })
        let parts = try #require(json["parts"] as? [[String: Any]])
        #expect(parts.count == 2)
        let file = try #require(parts.first { $0["name"] as? String == "file" })
        #expect(file["size"] as? Int == payload.count)
        #expect(file["sha256"] as? String == payload.sha256Hex)
    }

    @Test("a request that cannot be built reaches failure without an operation")
    func serializationFailure() async throws {
        let manager = try await manager()
        let failed = Atomic<Bool>(false)
        let operation = manager.POST("items", parameters: nil, constructingBodyWith: { form in
            try form.appendPart(withFileURL: URL(fileURLWithPath: "/nonexistent/courier"), name: "file")
        }, success: nil, failure: { operation, _ in
            #expect(operation == nil)
            failed.store(true, ordering: .releasing)
        })
        #expect(operation == nil)
        #expect(await eventually { failed.load(ordering: .acquiring) })
    }

    @Test("async twin returns the JSON")
    func asyncTwin() async throws {
        let manager = try await manager()
        let object = try await manager.perform("GET", "items", parameters: ["q": "1"])
        let json = try #require(object as? [String: Any])
        #expect((json["args"] as? [String: Any])?["q"] as? String == "1")
    }
}
