import Courier
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Retries end to end: nginx answering 503 with `Retry-After: 1` until the outage is lifted, and the in-process
/// server failing a given number of times, through sessions, operations and the CLI.
@Suite("Retries against real servers")
struct RetryInteropTests {
    @Test(.enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() })
    func nginxOutageWithRetryAfterIsWaitedOutOnce() async throws {
        let name = "outage-\(UUID().uuidString.prefix(8).lowercased())"
        let file = try NginxInterop.servedFile("retry/\(name).txt")
        let flag = try NginxInterop.servedFile("retry/\(name).down")
        try Data("back again\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try Data().write(to: flag)
        defer {
            try? FileManager.default.removeItem(at: flag)
            try? FileManager.default.removeItem(at: file)
        }

        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = try NginxInterop.policy()
        configuration.urlCache = nil
        configuration.interceptors = [RetryPolicy()]
        let session = URLSessionManager(configuration: configuration)
        session.completionQueue = SessionFixtures.completionQueue
        defer { session.invalidateSessionCancelingTasks(true) }
        let events = Mutex<[(event: RetryEvent, at: ContinuousClock.Instant)]>([])
        session.setTaskWillRetryBlock { _, _, event in events.withLock { $0.append((event, .now)) } }
        let probe = NginxInterop.probe()
        let request = try NginxInterop.request("retry/\(name).txt", probe: probe)
        let task = session.dataTask(with: request, completionHandler: nil)
        let notified = Mutex<[TimeInterval]>([])
        let observer = NotificationCenter.default.addObserver(forName: .courierTaskWillRetry, object: task, queue: nil) { note in
            if let delay = note.userInfo?[SessionNotificationKey.retryDelay] as? TimeInterval { notified.withLock { $0.append(delay) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let start = ContinuousClock.now
        async let outcome = task.value
        // The outage ends once nginx has answered the first attempt.
        let first = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(first.status == 503)
        try FileManager.default.removeItem(at: flag)
        let data = try await outcome
        let elapsed = ContinuousClock.now - start

        #expect(String(decoding: data, as: UTF8.self) == "back again\n")
        #expect(task.retryCount == 1)
        let seen = events.withLock { $0 }
        #expect(seen.map(\.event.delay) == [1], "the delay is the server's Retry-After")
        #expect(seen.first?.event.response?.statusCode == 503)
        #expect(elapsed >= .seconds(1) && elapsed < .seconds(3), "measured \(elapsed) for a Retry-After of 1 s")
        let lines = try await NginxInterop.accessLog(probe: probe, count: 2)
        #expect(lines.map(\.status) == [503, 200])
        // Posted on the completion queue, which may still be delivering it.
        #expect(await eventually(timeout: .seconds(5)) { !notified.withLock { $0.isEmpty } })
        #expect(notified.withLock { $0 } == [1])
        print("nginx outage: Retry-After 1 s, measured \(elapsed) from the first attempt to the answer")
    }

    @Test
    func inProcessServerFailingTwiceSucceedsOnTheThirdAttempt() async throws {
        let session = SessionFixtures.manager { $0.interceptors = [RetryPolicy(exponentialBackoffScale: 0.1)] }
        defer { session.invalidateSessionCancelingTasks(true) }
        let delays = Mutex<[TimeInterval]>([])
        session.setTaskWillRetryBlock { _, _, event in delays.withLock { $0.append(event.delay) } }
        let key = UUID().uuidString
        let task = session.dataTask(with: try await SessionFixtures.request("/flaky/2/\(key)"), completionHandler: nil)
        let data = try await task.value
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["attempt"] as? Int == 3)
        #expect(task.retryCount == 2)
        let measured = delays.withLock { $0 }
        #expect(measured.count == 2)
        #expect((0...0.1).contains(measured[0]) && (0...0.2).contains(measured[1]), "jittered backoff \(measured)")
        print("in-process server: backoff delays \(measured) (ceilings 0.1 s and 0.2 s)")

        // Three failures with a limit of two: the third 503 is the answer.
        let failing = try await session.data(for: try await SessionFixtures.request("/flaky/3/\(UUID().uuidString)"))
        #expect(failing.1.statusCode == 503)

        // A request's own interceptor runs after the session's: here it makes the session retry a 404 once.
        let notFoundOnce = Retrier { _, response, _, attempt in
            response?.statusCode == 404 && attempt.number == 0 ? .retry : .doNotRetry
        }
        let recovered = try await session.data(for: try await SessionFixtures.request("/flaky/1/\(UUID().uuidString)?status=404"), interceptors: [notFoundOnce])
        #expect(recovered.1.statusCode == 200)
    }

    @Test func operationsCountTheirRetries() async throws {
        let manager = HTTPRequestOperationManager()
        manager.interceptors = [RetryPolicy(exponentialBackoffScale: 0.01)]
        manager.responseSerializer = HTTPResponseSerializer()
        let operation = manager.httpRequestOperation(
            with: try await SessionFixtures.request("/flaky/2/\(UUID().uuidString)"), success: nil, failure: nil
        )
        operation.transport = Fixtures.transport
        await OperationFixtures.run([operation])
        #expect(operation.response?.statusCode == 200, "\(String(describing: operation.error))")
        #expect(operation.retryCount == 2)
    }

    /// A multipart form is a stream, but one that makes a fresh copy of itself: an operation's PUT of one is retried.
    @Test func anOperationsMultipartBodyIsSentAgain() async throws {
        let url = try await Fixtures.url("/flaky/1/\(UUID().uuidString)").absoluteString
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "PUT", urlString: url, parameters: ["a": "1"]) { form in
            form.appendPart(withFileData: Data(repeating: 7, count: 100_000), name: "file", fileName: "blob.bin", mimeType: "application/octet-stream")
        }
        let operation = HTTPRequestOperation(request: request)
        operation.transport = Fixtures.transport
        operation.interceptors = [RetryPolicy(exponentialBackoffScale: 0.01)]
        let announced = Mutex<[RetryEvent]>([])
        operation.setWillRetryBlock { event in announced.withLock { $0.append(event) } }
        await OperationFixtures.run([operation])
        #expect(operation.response?.statusCode == 200, "\(String(describing: operation.error))")
        #expect(operation.retryCount == 1)
        let events = announced.withLock { $0 }
        #expect(events.count == 1 && events.first?.retryNumber == 1 && events.first?.response?.statusCode == 503, "\(events)")
    }

    @Test func cliRetryPrintsEachRetry() async throws {
        let url = try await Fixtures.url("/flaky/2/\(UUID().uuidString)").absoluteString
        let outcome = try await CLIRequestTests.courier(["get", "--retry", "3", url])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("\"attempt\" : 3"), "\(outcome.standardOutput)")
        let retries = outcome.standardError.split(separator: "\n").filter { $0.hasPrefix("courier: retry ") }
        #expect(retries.count == 2, "\(outcome.standardError)")
        #expect(retries.first?.contains("retry 1 of 3") == true && retries.first?.contains("status 503") == true, "\(retries)")

        let none = try await CLIRequestTests.courier(["get", "-p", "h", try await Fixtures.url("/flaky/1/\(UUID().uuidString)").absoluteString])
        #expect(none.standardOutput.hasPrefix("HTTP/1.1 503"), "without --retry nothing is retried")
    }

    /// `--retry` is one of every command's options: a download and a batch get through a server that fails twice.
    @Test func cliDownloadAndBatchRetry() async throws {
        let folder = try Fixtures.temporaryDirectory("retry")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try await Fixtures.url("/flaky/2/\(UUID().uuidString)").absoluteString
        let output = folder.appendingPathComponent("attempt.json")
        let download = try await CLIRequestTests.courier(["download", "--retry", "3", "-o", output.path, url])
        #expect(download.status == 0, "\(download.standardError)")
        #expect(download.standardError.contains("courier: retry 2 of 3"), "\(download.standardError)")
        #expect(try SessionFixtures.json(try Data(contentsOf: output))["attempt"] as? Int == 3)

        let failing = try await CLIRequestTests.courier(["download", "-o", folder.appendingPathComponent("none.json").path,
                                                          try await Fixtures.url("/flaky/1/\(UUID().uuidString)").absoluteString])
        #expect(failing.status == 3, "without --retry the 503 stands: \(failing.standardError)")

        let list = folder.appendingPathComponent("list.txt")
        let flaky = try await Fixtures.url("/flaky/2/\(UUID().uuidString)").absoluteString
        try Data("\(flaky)\tbatch.json\n".utf8).write(to: list)
        let batch = try await CLIRequestTests.courier(["batch", list.path, "--output-dir", folder.path, "--retry", "2"])
        #expect(batch.status == 0, "\(batch.standardOutput)\(batch.standardError)")
        let batchRetries = batch.standardError.split(separator: "\n").filter { $0.hasPrefix("courier: retry ") }
        #expect(batchRetries.count == 2 && batchRetries.allSatisfy { $0.hasSuffix("(\(flaky))") }, "\(batch.standardError)")
        #expect(try SessionFixtures.json(try Data(contentsOf: folder.appendingPathComponent("batch.json")))["attempt"] as? Int == 3)
    }
}
