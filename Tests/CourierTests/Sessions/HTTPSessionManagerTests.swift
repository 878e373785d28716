import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sessions: HTTPSessionManager and async/await")
struct HTTPSessionManagerTests {
    private static func manager() async throws -> HTTPSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = Fixtures.transport
        let manager = HTTPSessionManager(baseURL: try await Fixtures.url("/anything"), configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        return manager
    }

    @Test func verbsResolveAgainstTheBaseURLAndCallSuccess() async throws {
        let manager = try await Self.manager()
        #expect(manager.baseURL?.absoluteString.hasSuffix("/anything/") == true)
        #expect(type(of: manager.requestSerializer) == HTTPRequestSerializer.self)
        #expect(manager.responseSerializer is JSONResponseSerializer)
        let seen = EventLog()
        let done = Signal<Bool>()
        let remaining = Atomic<Int>(6)
        let finish: @Sendable () -> Void = { if remaining.subtract(1, ordering: .relaxed).newValue == 0 { done.fire(true) } }
        let failure: HTTPSessionManager.Failure = { _, error in seen.append("failure(\(error))"); finish() }
        let record: HTTPSessionManager.Success = { task, object in
            let json = object as? [String: Any]
            let method = json?["method"] as? String ?? "?"
            let args = (json?["args"] as? [String: Any])?["q"] as? String ?? "-"
            let form = (json?["form"] as? [String: Any])?["q"] as? String ?? "-"
            seen.append("\(method) \(task.currentRequest?.url?.path ?? "") args=\(args) form=\(form)")
            finish()
        }
        let tasks = [
            manager.GET("users", parameters: ["q": "1"], success: record, failure: failure),
            manager.POST("users", parameters: ["q": "2"], success: record, failure: failure),
            manager.PUT("users/7", parameters: ["q": "3"], success: record, failure: failure),
            manager.PATCH("users/7", parameters: ["q": "4"], success: record, failure: failure),
            manager.DELETE("users/7", parameters: ["q": "5"], success: record, failure: failure),
            manager.HEAD("users", success: { task in seen.append("HEAD \((task.response as? HTTPURLResponse)?.statusCode ?? 0)"); finish() }, failure: failure),
        ]
        #expect(tasks.allSatisfy { $0?.state == .running || $0?.state == .completed })
        _ = await done.wait()
        #expect(Set(seen.all) == [
            "GET /anything/users args=1 form=-",
            "POST /anything/users args=- form=2",
            "PUT /anything/users/7 args=- form=3",
            "PATCH /anything/users/7 args=- form=4",
            "DELETE /anything/users/7 args=5 form=-",
            "HEAD 200",
        ])
    }

    /// AFNetworking 2.0's migration guide: "a baseURL will provide automatic network reachability change notifications".
    @Test func aBaseURLBringsReachabilityNotifications() async throws {
        let posted = Mutex<[(ObjectIdentifier, NetworkReachabilityStatus)]>([])
        let observer = NotificationCenter.default.addObserver(forName: .courierReachabilityDidChange, object: nil, queue: nil) { note in
            guard let source = note.object as? NetworkReachabilityManager,
                  let status = note.userInfo?[NetworkReachabilityManager.statusUserInfoKey] as? NetworkReachabilityStatus else { return }
            posted.withLock { $0.append((ObjectIdentifier(source), status)) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let manager = HTTPSessionManager(baseURL: try await Fixtures.url("/"), configuration: .ephemeral)
        defer { manager.invalidateSessionCancelingTasks(true) }
        let watched = ObjectIdentifier(manager.reachabilityManager)
        #expect(manager.reachabilityManager !== NetworkReachabilityManager.shared)
        #expect(await eventually {
            posted.withLock { $0.contains { $0.0 == watched && $0.1 == .reachableViaWiFi } }
        }, "no reachability notification for the base URL's host")
    }

    @Test func failureGetsTheTaskAndTheSerializerError() async throws {
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = Fixtures.transport
        let manager = HTTPSessionManager(baseURL: try await Fixtures.url("/"), configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        let done = Signal<(Int, Bool)>()
        manager.GET("status/404", success: { _, _ in done.fire((0, false)) }, failure: { task, error in
            done.fire(((task?.response as? HTTPURLResponse)?.statusCode ?? -1, error is ResponseSerializationError))
        })
        let (status, isSerializerError) = await done.wait()
        #expect(status == 404)
        #expect(isSerializerError)
    }

    @Test func multipartPostStreamsTheParts() async throws {
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = Fixtures.transport
        let manager = HTTPSessionManager(baseURL: try await Fixtures.url("/"), configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        let file = TestPayload.bytes(count: 200_000, seed: 12)
        let done = Signal<[String]?>()
        let sent = Atomic<Int64>(0)
        manager.setTaskDidSendBodyDataBlock { _, _, _, total, _ in sent.store(total, ordering: .relaxed) }
        let task = manager.POST("anything", parameters: ["name": "courier"], constructingBodyWith: { form in
            form.appendPart(withFileData: file, name: "upload", fileName: "blob.bin", mimeType: "application/octet-stream")
        }, success: { _, object in
            let json = object as? [String: Any]
            let upload = (json?["files"] as? [String: Any])?["upload"] as? [String: Any]
            done.fire([(json?["form"] as? [String: Any])?["name"] as? String ?? "", upload?["sha256"] as? String ?? ""])
        }, failure: { _, _ in done.fire(nil) })
        #expect(task is UploadTask)
        let fields = try #require(await done.wait())
        #expect(fields == ["courier", file.sha256Hex])
        #expect(sent.load(ordering: .relaxed) > 200_000)
    }

    @Test func asyncVerbsReturnTheObjectAndTheResponse() async throws {
        let manager = try await Self.manager()
        let (object, response) = try await manager.get("users", parameters: ["page": 2])
        #expect(response.statusCode == 200)
        #expect(((object as? [String: Any])?["args"] as? [String: Any])?["page"] as? String == "2")
        let (posted, _) = try await manager.post("users", parameters: ["name": "ada"])
        #expect(((posted as? [String: Any])?["form"] as? [String: Any])?["name"] as? String == "ada")
        #expect(try await manager.head("users").statusCode == 200)
        // Without parameters, PUT and PATCH still send an (empty) form body, as AFNetworking's serializer does;
        // DELETE, whose parameters go in the query, sends none.
        for (method, sendsForm) in [("PUT", true), ("PATCH", true), ("DELETE", false)] {
            let (object, response) = switch method {
            case "PUT": try await manager.put("users/1", parameters: nil)
            case "PATCH": try await manager.patch("users/1", parameters: nil)
            default: try await manager.delete("users/1", parameters: nil)
            }
            #expect(response.statusCode == 200)
            let echo = try #require(object as? [String: Any])
            #expect(echo["method"] as? String == method)
            #expect((echo["url"] as? String)?.hasSuffix("/anything/users/1") == true, "\(echo)")
            #expect(echo["data"] as? String == "")
            let headers = try #require(echo["headers"] as? [String: Any])
            #expect(headers["Content-Type"] as? String == (sendsForm ? "application/x-www-form-urlencoded" : nil), "\(method): \(headers)")
            #expect(headers["Content-Length"] as? String == (sendsForm ? "0" : nil), "\(method): \(headers)")
        }
        let (multipart, _) = try await manager.post("upload", parameters: ["a": "b"], constructingBodyWith: { form in
            form.appendPart(withFormData: Data("x".utf8), name: "c")
        })
        #expect(((multipart as? [String: Any])?["form"] as? [String: Any])?["c"] as? String == "x")
    }

    struct Echo: Decodable, Sendable {
        let method: String
        let args: [String: String]
    }

    @Test func typedDecodableVariants() async throws {
        let manager = try await Self.manager()
        let (echo, response) = try await manager.get("typed", parameters: ["k": "v"], as: Echo.self)
        #expect(response.statusCode == 200)
        #expect(echo.method == "GET")
        #expect(echo.args == ["k": "v"])
        #expect(try await manager.post("typed", as: Echo.self).0.method == "POST")
        #expect(try await manager.put("typed", as: Echo.self).0.method == "PUT")
        #expect(try await manager.patch("typed", as: Echo.self).0.method == "PATCH")
        #expect(try await manager.delete("typed", as: Echo.self).0.method == "DELETE")
        await #expect(throws: ResponseSerializationError.self) {
            _ = try await manager.get("/bytes/10", as: Echo.self)
        }
    }

    @Test func asyncDownloadReturnsTheFile() async throws {
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = Fixtures.transport
        let manager = HTTPSessionManager(baseURL: try await Fixtures.url("/"), configuration: configuration)
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        let url = try await manager.download("bytes/123456", parameters: ["seed": 3], to: destination)
        #expect(url == destination)
        #expect(try sha256Hex(ofFile: destination) == TestPayload.bytes(count: 123_456, seed: 3).sha256Hex)
    }

    @Test func bytesStreamsTheBodyAfterTheHead() async throws {
        let manager = SessionFixtures.manager()
        let (response, body) = try await manager.bytes(for: try await SessionFixtures.request("/stream-bytes/300000?seed=5&chunk_size=10000"))
        #expect(response.statusCode == 200)
        var collected = Data()
        var chunks = 0
        for try await chunk in body {
            collected.append(chunk)
            chunks += 1
        }
        #expect(chunks > 1)
        #expect(collected == TestPayload.bytes(count: 300_000, seed: 5))
    }

    @Test func cancellingTheSwiftTaskCancelsTheCourierTask() async throws {
        let manager = SessionFixtures.manager()
        let task = manager.dataTask(with: try await SessionFixtures.request("/delay/10"), completionHandler: nil)
        let waiter = Task { try await task.value }
        #expect(await eventually { task.state == .running }, "awaiting value resumed the task")
        let started = ContinuousClock.now
        waiter.cancel()
        await #expect(throws: URLError.self) { try await waiter.value }
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(task.state == .completed)
        #expect((task.error as? URLError)?.code == .cancelled)

        let http = try await Self.manager()
        let verb = Task { _ = try await http.get("/delay/10") }
        #expect(await eventually { !http.tasks.isEmpty })
        verb.cancel()
        await #expect(throws: URLError.self) { try await verb.value }
        #expect(await eventually { http.tasks.isEmpty })
    }

    @Test func progressUpdatesEndWithTheTask() async throws {
        let manager = SessionFixtures.manager()
        let task = manager.downloadTask(with: try await SessionFixtures.request("/bytes/2000000?seed=2"), completionHandler: nil)
        let updates = task.progressUpdates()
        task.resume()
        var last: TransferProgress?
        for await update in updates { last = update }
        #expect(task.state == .completed)
        #expect(last.map { $0.totalBytes <= 2_000_000 && $0.totalBytes > 0 } == true)
        #expect(task.downloadProgress.completedUnitCount == 2_000_000)
        #expect(task.downloadProgress.totalUnitCount == 2_000_000)
    }
}
