import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sessions: data, upload and download tasks")
struct SessionTaskKindsTests {
    @Test func dataTaskStartsSuspendedAndDeliversTheSerializedBody() async throws {
        let manager = SessionFixtures.manager()
        let done = Signal<Bool>()
        let object = Mutex<[String: String]?>(nil)
        let task = manager.dataTask(with: try await SessionFixtures.request("/anything?greeting=hi")) { response, json, error in
            #expect(error == nil)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let args = (json as? [String: Any])?["args"] as? [String: String]
            object.withLock { $0 = args }
            done.fire(true)
        }
        #expect(task.state == .suspended)
        #expect(task.response == nil)
        #expect(manager.tasks.map(\.taskIdentifier) == [task.taskIdentifier])
        #expect(manager.dataTasks.count == 1)
        task.resume()
        _ = await done.wait()
        #expect(object.withLock { $0 } == ["greeting": "hi"])
        #expect(task.state == .completed)
        #expect(task.error == nil)
        #expect(task.countOfBytesReceived == Int64(task.responseData.count))
        #expect(task.progress.completedUnitCount == Int64(task.responseData.count))
        #expect(task.currentRequest?.url?.path == "/anything")
        #expect(await eventually { manager.tasks.isEmpty })
    }

    @Test func uploadTaskFromDataReportsBytesSent() async throws {
        let manager = SessionFixtures.manager()
        let payload = TestPayload.bytes(count: 300_000, seed: 5)
        let task = manager.uploadTask(with: try await SessionFixtures.request("/anything", method: "POST"), from: payload, completionHandler: nil)
        #expect(manager.uploadTasks.count == 1 && manager.dataTasks.isEmpty)
        let body = try SessionFixtures.json(try await task.value)
        #expect(body["body_size"] as? Int == payload.count)
        #expect(body["body_sha256"] as? String == payload.sha256Hex)
        #expect(task.countOfBytesSent == Int64(payload.count))
        #expect(task.countOfBytesExpectedToSend == Int64(payload.count))
        #expect(task.progress === task.uploadProgress)
        #expect(manager.uploadProgress(for: task).completedUnitCount == Int64(payload.count))
    }

    @Test func uploadTaskFromFileStreamsIt() async throws {
        let manager = SessionFixtures.manager()
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let payload = TestPayload.bytes(count: 2 << 20, seed: 8)
        try payload.write(to: file)
        let progressCalls = Atomic<Int>(0)
        let task = manager.uploadTask(with: try await SessionFixtures.request("/anything", method: "PUT"), fromFile: file,
                                      progress: { _ in progressCalls.add(1, ordering: .relaxed) }, completionHandler: nil)
        let body = try SessionFixtures.json(try await task.value)
        #expect(body["body_sha256"] as? String == payload.sha256Hex)
        #expect(progressCalls.load(ordering: .relaxed) > 0)
    }

    @Test func uploadTaskFromAMissingFileFails() async throws {
        let manager = SessionFixtures.manager()
        let task = manager.uploadTask(with: try await SessionFixtures.request("/anything", method: "POST"),
                                      fromFile: Fixtures.temporaryFile("missing"), completionHandler: nil)
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(task.error != nil)
        #expect(task.state == .completed)
    }

    @Test func streamedUploadAsksForANewStreamOnA307() async throws {
        let manager = SessionFixtures.manager()
        let payload = TestPayload.bytes(count: 100_000, seed: 2)
        let asked = Atomic<Int>(0)
        manager.setTaskNeedNewBodyStreamBlock { _, _ in
            asked.add(1, ordering: .relaxed)
            return InputStream(data: payload)
        }
        var request = try await SessionFixtures.request("/redirect-to?url=/anything&status_code=307", method: "POST")
        request.setValue("\(payload.count)", forHTTPHeaderField: "Content-Length")
        let task = manager.uploadTask(withStreamedRequest: request, completionHandler: nil)
        let body = try SessionFixtures.json(try await task.value)
        #expect(body["body_sha256"] as? String == payload.sha256Hex)
        #expect(asked.load(ordering: .relaxed) == 2, "one stream for the first send, one for the 307")
        #expect(task.currentRequest?.url?.path == "/anything")
        #expect(task.originalRequest?.url?.path == "/redirect-to")
    }

    /// A task made while a `Progress` is current with pending units joins it with the progress it reports: a
    /// download task's download progress, an upload task's upload progress (the other stays alone).
    @Test func theTasksProgressJoinsTheCurrentProgress() async throws {
        let manager = SessionFixtures.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let request = try await SessionFixtures.request("/bytes/300000?seed=9")
        let downloadParent = Progress(totalUnitCount: 1)
        let download = Self.whileCurrent(downloadParent, pending: 1) {
            manager.downloadTask(with: request, destination: nil, completionHandler: nil)
        }
        _ = try await download.value
        #expect(download.downloadProgress.completedUnitCount == 300_000)
        #expect(downloadParent.completedUnitCount == 1, "the parent is at \(downloadParent.fractionCompleted)")
        #expect(downloadParent.fractionCompleted == 1)

        let uploadParent = Progress(totalUnitCount: 2)
        let post = try await SessionFixtures.request("/post", method: "POST")
        let upload = Self.whileCurrent(uploadParent, pending: 2) {
            manager.uploadTask(with: post, from: Data(count: 200_000), completionHandler: nil)
        }
        _ = try await upload.value
        #expect(upload.uploadProgress.completedUnitCount == 200_000)
        #expect(uploadParent.fractionCompleted == 1, "the parent is at \(uploadParent.fractionCompleted)")
        #expect(upload.downloadProgress.completedUnitCount > 0, "the download progress counts too, on its own")
    }

    /// Runs `body` with `parent` as the thread's current progress (not from an async context: the current
    /// progress is per thread).
    private static func whileCurrent<Value>(_ parent: Progress, pending: Int64, _ body: () -> Value) -> Value {
        parent.becomeCurrent(withPendingUnitCount: pending)
        defer { parent.resignCurrent() }
        return body()
    }

    @Test func downloadTaskMovesTheFileToItsDestination() async throws {
        let manager = SessionFixtures.manager()
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        let done = Signal<URL?>()
        let task = manager.downloadTask(with: try await SessionFixtures.request("/bytes/500000?seed=4"),
                                        destination: { temporary, response in
                                            #expect(FileManager.default.fileExists(atPath: temporary.path))
                                            #expect((response as? HTTPURLResponse)?.statusCode == 200)
                                            return destination
                                        }) { response, url, error in
            #expect(error == nil)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            done.fire(url)
        }
        #expect(manager.downloadTasks.count == 1)
        task.resume()
        #expect(await done.wait() == destination)
        #expect(try sha256Hex(ofFile: destination) == TestPayload.bytes(count: 500_000, seed: 4).sha256Hex)
        #expect(task.location == destination)
        #expect(task.countOfBytesReceived == 500_000)
        #expect(task.countOfBytesExpectedToReceive == 500_000)
    }

    @Test func downloadWithoutDestinationRemovesTheTemporaryFile() async throws {
        let manager = SessionFixtures.manager()
        let seen = Mutex<URL?>(nil)
        manager.setDownloadTaskDidFinishDownloadingBlock { _, _, location in
            #expect(FileManager.default.fileExists(atPath: location.path))
            seen.withLock { $0 = location }
            return nil
        }
        let task = manager.downloadTask(with: try await SessionFixtures.request("/bytes/1000?seed=1"), completionHandler: nil)
        #expect(try await task.value == nil)
        let location = try #require(seen.withLock { $0 })
        #expect(!FileManager.default.fileExists(atPath: location.path))
    }

    @Test func failedMoveReportsAnErrorAndKeepsTheFile() async throws {
        let manager = SessionFixtures.manager()
        let blocked = Fixtures.temporaryFile("no-such-directory-\(UUID().uuidString)").appendingPathComponent("file")
        let done = Signal<(URL?, (any Error)?)>()
        let task = manager.downloadTask(with: try await SessionFixtures.request("/bytes/20000?seed=6"),
                                        destination: { _, _ in blocked }) { _, url, error in done.fire((url, error)) }
        task.resume()
        let (url, error) = await done.wait()
        #expect(url == nil)
        let urlError = try #require(error as? URLError)
        #expect(urlError.code == .cannotMoveFile)
        let kept = try #require(task.location)
        defer { try? FileManager.default.removeItem(at: kept) }
        #expect(urlError.userInfo["CourierDownloadedFileURL"] as? URL == kept)
        #expect(try sha256Hex(ofFile: kept) == TestPayload.bytes(count: 20_000, seed: 6).sha256Hex)
    }

    @Test func cancellingASuspendedTaskCompletesItWithCancelled() async throws {
        let manager = SessionFixtures.manager()
        let done = Signal<(any Error)?>()
        let task = manager.dataTask(with: try await SessionFixtures.request("/get")) { _, _, error in done.fire(error) }
        task.cancel()
        #expect(task.state == .canceling || task.state == .completed)
        let error = await done.wait()
        #expect((error as? URLError)?.code == .cancelled)
        #expect(task.state == .completed)
    }

    @Test func resourceTimeoutEndsASlowTask() async throws {
        let manager = SessionFixtures.manager { configuration in configuration.timeoutIntervalForResource = 0.5 }
        let task = manager.dataTask(with: try await SessionFixtures.request("/slow-body/100?delay=5"), completionHandler: nil)
        let started = ContinuousClock.now
        await #expect(throws: URLError.self) { try await task.value }
        #expect((task.error as? URLError)?.code == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func sessionHeadersAndCookiesApply() async throws {
        let manager = SessionFixtures.manager { configuration in configuration.httpAdditionalHeaders = ["X-Session": "yes"] }
        _ = try await manager.data(for: try await SessionFixtures.request("/cookies/set?flavour=oat"))
        let (data, _) = try await manager.data(for: try await SessionFixtures.request("/anything"))
        let headers = try #require(try SessionFixtures.json(data)["headers"] as? [String: Any])
        let lowered = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), "\($0.value)") })
        #expect(lowered["x-session"] == "yes")
        #expect(lowered["cookie"]?.contains("flavour=oat") == true)
        #expect(manager.configuration.httpCookieStorage?.allCookies.contains { $0.name == "flavour" } == true)
        #expect(SessionConfiguration.default.httpCookieStorage === CookieJar.processShared)
        #expect(SessionConfiguration.ephemeral.httpCookieStorage !== CookieJar.processShared)
    }
}
