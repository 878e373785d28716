import Courier
import Foundation
import Logging
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// swift-log events of exchanges through sessions, operations and the transport, captured by a handler of the
/// test's own: the events and their metadata for redirected, retried, failed and cancelled requests, and no secret.
@Suite("Logging")
struct LoggingTests {
    struct Record: Sendable, CustomStringConvertible {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
        var description: String { "\(level) \(message) \(metadata.sorted { $0.key < $1.key })" }
    }

    final class Store: Sendable {
        let records = Mutex<[Record]>([])
        var all: [Record] { records.withLock { $0 } }
        func messages(requestID: String? = nil) -> [String] {
            all.filter { requestID == nil || $0.metadata["courier.request.id"] == requestID }.map(\.message)
        }
    }

    struct CapturingHandler: LogHandler {
        let store: Store
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            for (key, value) in event.metadata ?? [:] { merged[key] = value }
            store.records.withLock {
                $0.append(Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
            }
        }
    }

    static func logger(_ store: Store, level: Logger.Level = .trace) -> Logger {
        Logger(label: "courier-tests") { _ in CapturingHandler(store: store, logLevel: level) }
    }

    static func session(_ store: Store, level: Logger.Level = .trace, _ configure: (inout SessionConfiguration) -> Void = { _ in }) -> URLSessionManager {
        SessionFixtures.manager {
            $0.logger = Self.logger(store, level: level)
            configure(&$0)
        }
    }

    @Test func aRedirectedRequestLogsItsStartEachHopAndItsEnd() async throws {
        let store = Store()
        let session = Self.session(store)
        defer { session.invalidateSessionCancelingTasks(true) }
        _ = try await session.data(for: try await SessionFixtures.request("/redirect/2"))
        let started = try #require(store.all.first { $0.message == "request started" })
        let id = try #require(started.metadata["courier.request.id"])
        #expect(started.level == .debug)
        #expect(started.metadata["http.request.method"] == "GET")
        let messages = store.messages(requestID: id)
        #expect(messages.filter { $0 == "following redirect" }.count == 2, "\(messages)")
        #expect(messages.filter { $0 == "sending request" }.count == 3)
        let finished = try #require(store.all.first { $0.message == "request finished" && $0.metadata["courier.request.id"] == id })
        #expect(finished.level == .debug)
        #expect(finished.metadata["http.response.status_code"] == "200")
        #expect(finished.metadata["courier.redirects"] == "2")
        #expect(finished.metadata["courier.retries"] == "0")
        #expect(finished.metadata["url.full"]?.hasSuffix("/get") == true)
        #expect(Int(finished.metadata["courier.duration_ms"] ?? "") != nil)
    }

    @Test func aRetriedRequestLogsEachRetry() async throws {
        let store = Store()
        let session = Self.session(store) { $0.interceptors = [RetryPolicy(exponentialBackoffScale: 0.01)] }
        defer { session.invalidateSessionCancelingTasks(true) }
        _ = try await session.data(for: try await SessionFixtures.request("/flaky/1/\(UUID().uuidString)"))
        let retry = try #require(store.all.first { $0.message == "retrying request" })
        #expect(retry.level == .trace)
        #expect(retry.metadata["courier.retry"] == "1")
        #expect(retry.metadata["http.response.status_code"] == "503")
        let finished = try #require(store.all.first { $0.message == "request finished" })
        #expect(finished.metadata["courier.retries"] == "1")
    }

    @Test func failedAndCancelledRequestsSaySo() async throws {
        let store = Store()
        let session = Self.session(store, level: .debug)
        defer { session.invalidateSessionCancelingTasks(true) }
        _ = try? await session.data(for: URLRequest(url: URL(string: "http://127.0.0.1:1/refused")!))
        let failed = try #require(store.all.first { $0.message == "request failed" })
        #expect(failed.metadata["error.type"] == "cannotConnectToHost")

        let slow = Task { try await session.data(for: try await SessionFixtures.request("/delay/5")) }
        // Cancelled once its exchange has started (a task cancelled before would never start one).
        #expect(await eventually(timeout: .seconds(5)) {
            store.all.contains { $0.message == "request started" && $0.metadata["url.full"]?.contains("/delay/5") == true }
        })
        slow.cancel()
        _ = try? await slow.value
        // The exchange logs its end when its own run ends, which may be just after the caller was told.
        let logged = await eventually(timeout: .seconds(5)) { store.all.contains { $0.message == "request cancelled" } }
        #expect(logged, "\(store.all)")
        #expect(!store.all.contains { $0.level == .trace }, "nothing below the logger's level")
    }

    @Test func secretsNeverAppear() async throws {
        let store = Store()
        let session = Self.session(store)
        defer { session.invalidateSessionCancelingTasks(true) }
        let base = try await Fixtures.url("/cookies/set")
        var components = try #require(URLComponents(url: base, resolvingAgainstBaseURL: true))
        components.user = "alice"
        components.password = "pa55word-secret"
        components.queryItems = [URLQueryItem(name: "access_token", value: "tok-secret"), URLQueryItem(name: "session", value: "sess-secret"), URLQueryItem(name: "page", value: "2")]
        var request = URLRequest(url: try #require(components.url))
        request.setValue("Bearer bearer-secret", forHTTPHeaderField: "Authorization")
        request.setValue("Basic proxy-secret", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("sid=cookie-secret", forHTTPHeaderField: "Cookie")
        _ = try await session.data(for: request)
        let text = store.all.map(\.description).joined(separator: "\n")
        #expect(!store.all.isEmpty)
        for secret in ["pa55word-secret", "tok-secret", "sess-secret", "bearer-secret", "proxy-secret", "cookie-secret"] {
            #expect(!text.contains(secret), "\(secret) was logged")
        }
        #expect(text.contains("page=2"), "harmless query values stay: \(text)")
        #expect(text.contains("REDACTED"))
    }

    /// A failure's message names the URL: without its credentials and secret query values, also for each retry.
    @Test func secretsNeverAppearInFailuresAndRetries() async throws {
        let store = Store()
        let session = Self.session(store) { $0.interceptors = [RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01)] }
        defer { session.invalidateSessionCancelingTasks(true) }
        // A port nothing listens on: the connection is refused at once.
        let closed = try await HostileServer.start { _, _ in .close }
        let port = closed.port
        await closed.stop()
        let url = try #require(URL(string: "http://alice:pa55word-secret@127.0.0.1:\(port)/x?access_token=tok-secret&page=2"))
        await #expect(throws: URLError.self) { try await session.data(for: URLRequest(url: url)) }
        #expect(store.messages().contains("retrying request"), "\(store.messages())")
        #expect(store.messages().contains("request failed"), "\(store.messages())")
        let text = store.all.map(\.description).joined(separator: "\n")
        for secret in ["pa55word-secret", "tok-secret"] {
            #expect(!text.contains(secret), "\(secret) was logged: \(text)")
        }
        #expect(text.contains("127.0.0.1:\(port)/x?access_token=REDACTED&page=2"), "\(text)")
    }

    @Test func aboveDebugNothingIsLoggedOrMade() async throws {
        let store = Store()
        let session = Self.session(store, level: .info)
        defer { session.invalidateSessionCancelingTasks(true) }
        _ = try await session.data(for: try await SessionFixtures.request("/redirect/1"))
        #expect(store.all.isEmpty)
    }

    @Test func operationsLogThroughTheirManagersLogger() async throws {
        let store = Store()
        let manager = HTTPRequestOperationManager()
        manager.logger = Self.logger(store, level: .debug)
        manager.responseSerializer = HTTPResponseSerializer()
        let operation = manager.httpRequestOperation(with: try await SessionFixtures.request("/get"), success: nil, failure: nil)
        operation.transport = Fixtures.transport
        await OperationFixtures.run([operation])
        #expect(store.messages() == ["request started", "request finished"])
    }

    @Test func theTransportHandsItsLoggerToTheEngine() async throws {
        let store = Store()
        var configuration = EngineTransport.Configuration()
        configuration.logger = Self.logger(store)
        let transport = EngineTransport(configuration: configuration)
        defer { Task { try? await transport.shutdown() } }
        let response = try await transport.send(TransportRequest(url: try await Fixtures.url("/get")))
        _ = try await response.body.collect()
        #expect(!store.all.isEmpty, "AsyncHTTPClient logged nothing through the transport's logger")
        #expect(store.all.allSatisfy { $0.level <= .debug })
    }
}
