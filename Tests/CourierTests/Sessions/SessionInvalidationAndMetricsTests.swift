import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sessions: invalidation and metrics")
struct SessionInvalidationAndMetricsTests {
    @Test func invalidateAndCancelCancelsEveryTask() async throws {
        let manager = SessionFixtures.manager()
        let log = EventLog()
        let invalid = Signal<Bool>()
        manager.setTaskDidCompleteBlock { _, task, error in
            log.append("complete(\(task.taskIdentifier),\((error as? URLError)?.code == .cancelled))")
        }
        manager.setSessionDidBecomeInvalidBlock { _, error in
            log.append("invalid(\(error == nil))")
            invalid.fire(true)
        }
        let running = manager.dataTask(with: try await SessionFixtures.request("/delay/5"), completionHandler: nil)
        running.resume()
        let suspended = manager.downloadTask(with: try await SessionFixtures.request("/bytes/100"), completionHandler: nil)
        #expect(await eventually { running.exchange?.phase == .awaitingResponse }, "the running task's request is out")
        manager.invalidateSessionCancelingTasks(true)
        #expect(manager.isInvalidated)
        _ = await invalid.wait()
        #expect(Set(log.all.dropLast()) == ["complete(\(running.taskIdentifier),true)", "complete(\(suspended.taskIdentifier),true)"])
        #expect(log.all.last == "invalid(true)")
        #expect(manager.tasks.isEmpty)

        let late = manager.dataTask(with: try await SessionFixtures.request("/get"), completionHandler: nil)
        await #expect(throws: URLError.self) { try await late.value }
        #expect((late.error as? URLError)?.code == .cancelled)
    }

    @Test func invalidateWithoutCancellingLetsTasksFinish() async throws {
        let manager = SessionFixtures.manager()
        let log = EventLog()
        let invalid = Signal<Bool>()
        manager.setTaskDidCompleteBlock { _, _, error in log.append("complete(\(error == nil))") }
        manager.setSessionDidBecomeInvalidBlock { _, _ in
            log.append("invalid")
            invalid.fire(true)
        }
        let task = manager.dataTask(with: try await SessionFixtures.request("/delay/1"), completionHandler: nil)
        task.resume()
        manager.invalidateSessionCancelingTasks(false)
        #expect(await throughout(.milliseconds(200)) { log.all.isEmpty }, "the running task goes on and the session is not invalid yet")
        _ = await invalid.wait()
        #expect(log.all == ["complete(true)", "invalid"])
        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func ownTransportIsShutDownOnInvalidation() async throws {
        var configuration = SessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.httpVersion = .http1Only
        let pinned = SecurityPolicy(pinningMode: .none, pinnedCertificates: [])
        configuration.securityPolicies = ["example.org": pinned]
        let manager = URLSessionManager(configuration: configuration)
        let own = try #require(manager.transport as? EngineTransport)
        #expect(own.configuration.maximumConnectionsPerHost == 1)
        #expect(own.configuration.securityPolicy === manager.securityPolicy)
        #expect(own.configuration.securityPolicies["example.org"] === pinned)
        #expect(own.configuration.httpVersion == .http1Only)
        _ = try await manager.data(for: try await SessionFixtures.request("/get"))
        let invalid = Signal<Bool>()
        manager.setSessionDidBecomeInvalidBlock { _, _ in invalid.fire(true) }
        manager.invalidateSessionCancelingTasks(false)
        _ = await invalid.wait()
        // The session's own transport is shut down with it: it takes no more requests.
        let url = try await Fixtures.url("/get")
        var refusal: URLError?
        _ = try await eventually(timeout: .seconds(5), every: .milliseconds(10)) {
            do {
                _ = try await own.send(TransportRequest(url: url))
                return false
            } catch let error as URLError {
                refusal = error
                return true
            }
        }
        // Cancelled while the engine shuts down, or refused once it has ("The transport has been shut down.").
        #expect(refusal?.code == .cancelled, "\(String(describing: refusal))")
    }

    @Test func metricsArePresentAndOrdered() async throws {
        let manager = SessionFixtures.manager()
        let collected = Mutex<SessionTaskMetrics?>(nil)
        let order = EventLog()
        manager.setTaskDidFinishCollectingMetricsBlock { _, _, metrics in
            collected.withLock { $0 = metrics }
            order.append("metrics")
        }
        manager.setTaskDidCompleteBlock { _, _, _ in order.append("complete") }
        let task = manager.dataTask(with: try await SessionFixtures.request("/redirect/1"), completionHandler: nil)
        let data = try await task.value
        #expect(await eventually { order.all.count == 2 })
        #expect(order.all == ["metrics", "complete"])
        let metrics = try #require(collected.withLock { $0 })
        #expect(metrics.redirectCount == 1)
        #expect(metrics.transactionMetrics.count == 2)
        #expect(metrics.countOfBytesReceived == Int64(data.count))
        #expect(metrics.queueingDuration >= 0)
        var previousEnd = metrics.taskInterval.start
        for transaction in metrics.transactionMetrics {
            let start = transaction.requestStartDate
            let first = try #require(transaction.responseStartDate)
            let end = try #require(transaction.responseEndDate)
            #expect(previousEnd <= transaction.fetchStartDate)
            #expect(transaction.fetchStartDate <= start)
            #expect(start <= first)
            #expect(first <= end)
            #expect(end <= metrics.taskInterval.end)
            #expect(transaction.networkProtocolName == "http/1.1")
            // Not exposed by AsyncHTTPClient, so not invented.
            #expect(transaction.domainLookupStartDate == nil && transaction.secureConnectionStartDate == nil)
            if let connectStart = transaction.connectStartDate, let connectEnd = transaction.connectEndDate {
                #expect(start <= connectStart && connectStart <= connectEnd && connectEnd <= first)
            }
            previousEnd = end
        }
        #expect(metrics.transactionMetrics.first?.response?.statusCode == 302)
        #expect(metrics.transactionMetrics.last?.response?.statusCode == 200)
    }

    /// A session with its own transport: the first request opens a connection, the redirect reuses it.
    @Test func aNewConnectionIsTimedAndAReusedOneIsNot() async throws {
        let manager = SessionFixtures.manager { $0.transport = nil }
        defer { manager.invalidateSessionCancelingTasks(true) }
        let collected = Mutex<SessionTaskMetrics?>(nil)
        manager.setTaskDidFinishCollectingMetricsBlock { _, _, metrics in collected.withLock { $0 = metrics } }
        _ = try await manager.dataTask(with: try await SessionFixtures.request("/redirect/1"), completionHandler: nil).value
        #expect(await eventually { collected.withLock { $0 } != nil })
        let metrics = try #require(collected.withLock { $0 })
        #expect(metrics.transactionMetrics.count == 2)
        let first = try #require(metrics.transactionMetrics.first)
        let connectStart = try #require(first.connectStartDate)
        let connectEnd = try #require(first.connectEndDate)
        let firstByte = try #require(first.responseStartDate)
        #expect(first.madeNewConnection)
        #expect(first.requestStartDate <= connectStart && connectStart <= connectEnd && connectEnd <= firstByte)
        #expect(first.secureConnectionEndDate == nil)
        let second = try #require(metrics.transactionMetrics.last)
        #expect(!second.madeNewConnection && second.connectEndDate == nil)
    }

    /// Over TLS (HTTP/1.1 and HTTP/2), the connection interval ends when the handshake and the policy's check are done.
    @Test(arguments: [false, true])
    func aTLSConnectionIsTimedInOrder(http2: Bool) async throws {
        let server = try await TestServer.start(tls: TestServerTLS(http2: http2))
        defer { Task { try? await server.shutdown() } }
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = [try #require(server.certificateAuthorityDER)]
        let manager = SessionFixtures.manager {
            $0.transport = nil
            $0.securityPolicy = policy
        }
        defer { manager.invalidateSessionCancelingTasks(true) }
        let collected = Mutex<SessionTaskMetrics?>(nil)
        manager.setTaskDidFinishCollectingMetricsBlock { _, _, metrics in collected.withLock { $0 = metrics } }
        let url = try #require(URL(string: "bytes/2048", relativeTo: server.baseURL))
        let data = try await manager.dataTask(with: URLRequest(url: url), completionHandler: nil).value
        #expect(data.count == 2048)
        #expect(await eventually { collected.withLock { $0 } != nil })
        let transaction = try #require(collected.withLock { $0 }?.transactionMetrics.first)
        let connectStart = try #require(transaction.connectStartDate)
        let secureEnd = try #require(transaction.secureConnectionEndDate)
        let firstByte = try #require(transaction.responseStartDate)
        let end = try #require(transaction.responseEndDate)
        #expect(transaction.connectEndDate == secureEnd)
        #expect(transaction.requestStartDate <= connectStart && connectStart <= secureEnd && secureEnd <= firstByte && firstByte <= end)
        #expect(transaction.networkProtocolName == (http2 ? "h2" : "http/1.1"))
    }
}
