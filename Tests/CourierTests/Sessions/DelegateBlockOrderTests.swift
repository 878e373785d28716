import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sessions: delegate blocks, arguments and order")
struct DelegateBlockOrderTests {
    /// A manager whose blocks log what they see, checking that they run on the delegate queue.
    private static func loggingManager(_ log: EventLog) -> URLSessionManager {
        let manager = SessionFixtures.manager()
        manager.markDelegateQueue()
        let onQueue = { @Sendable (manager: URLSessionManager) in
            if !manager.isOnDelegateQueue { log.append("OFF-QUEUE") }
        }
        manager.setTaskWillPerformHTTPRedirectionBlock { manager, task, response, proposed in
            onQueue(manager)
            log.append("redirect(\(task.taskIdentifier),\(response.statusCode),\(proposed.url?.path ?? ""))")
            return proposed
        }
        manager.setDataTaskDidReceiveResponseBlock { manager, task, response in
            onQueue(manager)
            log.append("response(\(task.taskIdentifier),\((response as? HTTPURLResponse)?.statusCode ?? 0))")
            return .allow
        }
        manager.setDataTaskDidReceiveDataBlock { manager, task, data in
            onQueue(manager)
            log.append("data(\(task.taskIdentifier),\(data.count))")
        }
        manager.setDataTaskWillCacheResponseBlock { manager, task, proposed in
            onQueue(manager)
            log.append("cache(\(task.taskIdentifier),\(proposed.data.count))")
            return proposed
        }
        manager.setTaskDidSendBodyDataBlock { manager, task, sent, total, expected in
            onQueue(manager)
            log.append("sent(\(task.taskIdentifier),\(sent),\(total),\(expected))")
        }
        manager.setDownloadTaskDidWriteDataBlock { manager, task, written, total, expected in
            onQueue(manager)
            log.append("write(\(task.taskIdentifier),\(written),\(total),\(expected))")
        }
        manager.setDownloadTaskDidFinishDownloadingBlock { manager, task, location in
            onQueue(manager)
            log.append("finished(\(task.taskIdentifier),\(FileManager.default.fileExists(atPath: location.path)))")
            return nil
        }
        manager.setTaskDidFinishCollectingMetricsBlock { manager, task, metrics in
            onQueue(manager)
            log.append("metrics(\(task.taskIdentifier),\(metrics.transactionMetrics.count))")
        }
        manager.setTaskDidCompleteBlock { manager, task, error in
            onQueue(manager)
            log.append("complete(\(task.taskIdentifier),\(error.map { "\(($0 as? URLError)?.code.rawValue ?? -1)" } ?? "nil"))")
        }
        return manager
    }

    @Test func dataTaskBlocksFollowURLSessionOrder() async throws {
        let log = EventLog()
        let manager = Self.loggingManager(log)
        let observer = NotificationCenter.default.addObserver(forName: .courierTaskDidComplete, object: nil, queue: nil) { note in
            guard let task = note.object as? SessionTask, task.manager === manager else { return }
            let data = note.userInfo?[SessionNotificationKey.responseData] as? Data
            let object = note.userInfo?[SessionNotificationKey.serializedResponse] as? [String: Any]
            log.append("notification(\(data?.isEmpty == false),\(object?["url"] != nil))")
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let done = Signal<Bool>()
        let task = manager.dataTask(with: try await SessionFixtures.request("/redirect/2")) { response, object, error in
            log.append("handler(\((response as? HTTPURLResponse)?.statusCode ?? 0),\(object != nil),\(error == nil))")
            done.fire(true)
        }
        let id = task.taskIdentifier
        task.resume()
        _ = await done.wait()
        #expect(await eventually { log.all.contains { $0.hasPrefix("notification(") } })
        let events = log.all
        #expect(!events.contains("OFF-QUEUE"))
        #expect(events.first == "redirect(\(id),302,/relative-redirect/1)" || events.first == "redirect(\(id),302,/redirect/1)")
        #expect(events.filter { $0.hasPrefix("redirect(") }.count == 2)
        #expect(events.contains("response(\(id),200)"))
        #expect(log.collapsed == ["redirect", "response", "data", "cache", "metrics", "complete", "handler", "notification"])
        #expect(events.contains("metrics(\(id),3)"))
        #expect(events.contains("complete(\(id),nil)"))
        #expect(events.contains("handler(200,true,true)"))
        #expect(events.contains("notification(true,true)"))
        let received = events.filter { $0.hasPrefix("data(") }.compactMap { Int($0.dropFirst(5 + "\(id)".count + 1).dropLast()) }
        #expect(Int64(received.reduce(0, +)) == task.countOfBytesReceived)
    }

    @Test func uploadTaskReportsEveryBodyChunkBeforeTheResponse() async throws {
        let log = EventLog()
        let manager = Self.loggingManager(log)
        let payload = TestPayload.bytes(count: 1 << 20, seed: 11)
        let task = manager.uploadTask(with: try await SessionFixtures.request("/anything", method: "POST"), from: payload, completionHandler: nil)
        _ = try await task.value
        #expect(await eventually { log.all.contains { $0.hasPrefix("complete(") } })
        let id = task.taskIdentifier
        // A response to a POST is not stored (RFC 9111), so the will-cache block does not run, as in URLSession.
        #expect(log.collapsed == ["sent", "response", "data", "metrics", "complete"])
        let sent = log.all.filter { $0.hasPrefix("sent(") }
        #expect(sent.last == "sent(\(id),\(sent.last.map { String($0.split(separator: ",")[1]) } ?? ""),\(payload.count),\(payload.count))")
    }

    @Test func downloadTaskBlocksFollowURLSessionOrder() async throws {
        let log = EventLog()
        let manager = Self.loggingManager(log)
        let task = manager.downloadTask(with: try await SessionFixtures.request("/bytes/300000?seed=3"), completionHandler: nil)
        _ = try await task.value
        #expect(await eventually { log.all.contains { $0.hasPrefix("complete(") } })
        let id = task.taskIdentifier
        #expect(log.collapsed == ["write", "finished", "metrics", "complete"])
        #expect(log.all.filter { $0.hasPrefix("write(") }.last?.hasSuffix(",300000,300000)") == true)
        #expect(log.all.contains("finished(\(id),true)"))
    }

    @Test func challengeBlocksAnswerAuthentication() async throws {
        let manager = SessionFixtures.manager()
        let seen = EventLog()
        manager.setTaskDidReceiveAuthenticationChallengeBlock { _, task, challenge in
            seen.append("task(\(task.taskIdentifier),\(challenge.previousFailureCount),\(challenge.scheme.name),\(challenge.failureResponse?.statusCode ?? 0))")
            return .useCredential(URLCredential(user: "user", password: "secret", persistence: .none))
        }
        let task = manager.dataTask(with: try await SessionFixtures.request("/basic-auth/user/secret"), completionHandler: nil)
        let body = try SessionFixtures.json(try await task.value)
        #expect(body["authenticated"] as? Bool == true)
        #expect(seen.all == ["task(\(task.taskIdentifier),0,basic,401)"])

        let sessionOnly = SessionFixtures.manager()
        sessionOnly.setSessionDidReceiveAuthenticationChallengeBlock { _, challenge in
            seen.append("session(\(challenge.protectionSpace.host))")
            return .cancel
        }
        let refused = sessionOnly.dataTask(with: try await SessionFixtures.request("/basic-auth/user/secret"), completionHandler: nil)
        await #expect(throws: URLError.self) { try await refused.value }
        #expect((refused.error as? URLError)?.code == .cancelled)
        #expect(seen.all.last == "session(127.0.0.1)")
    }

    @Test func redirectBlockCanRefuseAHop() async throws {
        let manager = SessionFixtures.manager()
        manager.setTaskWillPerformHTTPRedirectionBlock { _, _, _, _ in nil }
        let task = manager.dataTask(with: try await SessionFixtures.request("/redirect/3"), completionHandler: nil)
        _ = try await task.value
        #expect((task.response as? HTTPURLResponse)?.statusCode == 302)
    }

    @Test func responseBlockCanCancel() async throws {
        let manager = SessionFixtures.manager()
        manager.setDataTaskDidReceiveResponseBlock { _, _, _ in .cancel }
        let task = manager.dataTask(with: try await SessionFixtures.request("/bytes/100000?seed=1"), completionHandler: nil)
        await #expect(throws: URLError.self) { try await task.value }
        #expect((task.error as? URLError)?.code == .cancelled)
        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func dataTaskBecomesADownloadTask() async throws {
        let log = EventLog()
        let manager = SessionFixtures.manager()
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        let done = Signal<Bool>()
        manager.setDataTaskDidReceiveResponseBlock { _, _, _ in .becomeDownload }
        manager.setDataTaskDidBecomeDownloadTaskBlock { _, dataTask, downloadTask in
            log.append("became(\(dataTask.taskIdentifier)->\(downloadTask.taskIdentifier))")
        }
        manager.setDownloadTaskDidWriteDataBlock { _, _, _, _, _ in log.append("write") }
        manager.setDownloadTaskDidFinishDownloadingBlock { _, task, _ in
            log.append("finished(\(task.taskIdentifier))")
            return destination
        }
        manager.setTaskDidCompleteBlock { _, task, error in
            log.append("complete(\(task.taskIdentifier),\(error == nil))")
            done.fire(true)
        }
        let task = manager.dataTask(with: try await SessionFixtures.request("/bytes/200000?seed=9"), completionHandler: nil)
        task.resume()
        _ = await done.wait()
        let downloadID = task.taskIdentifier + 1
        #expect(log.collapsed == ["became", "write", "finished", "complete"])
        #expect(log.all.first == "became(\(task.taskIdentifier)->\(downloadID))")
        #expect(log.all.last == "complete(\(downloadID),true)")
        #expect(try sha256Hex(ofFile: destination) == TestPayload.bytes(count: 200_000, seed: 9).sha256Hex)
        #expect(task.state == .completed)
    }

    @Test func resumeAndSuspendNotificationsCarryTheTask() async throws {
        let manager = SessionFixtures.manager()
        let log = EventLog()
        let observers = [Notification.Name.courierTaskDidResume, .courierTaskDidSuspend].map { name in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                guard let task = note.object as? SessionTask, task.manager === manager else { return }
                log.append(note.name == .courierTaskDidResume ? "resume" : "suspend")
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        // A response a second away: the task is still running when `suspend()` comes (with an immediate one, a
        // thread preempted between the two calls on a busy machine found the task completed, and nothing to suspend).
        let task = manager.dataTask(with: try await SessionFixtures.request("/delay/1"), completionHandler: nil)
        task.resume()
        task.suspend()
        task.resume()
        _ = try await task.value
        #expect(await eventually { log.all.count >= 3 })
        #expect(log.all == ["resume", "suspend", "resume"])
    }
}
