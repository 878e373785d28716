import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP cache against servers nobody here wrote, each rule proved by the requests the server logged: nginx
/// (`expires`, `Cache-Control: no-cache` with ETags, `Vary`; see scripts/nginx-test-server) and httpbin (`/cache`,
/// `/cache/{n}`, `/etag/{etag}`, `/response-headers`).
@Suite(
    "Interop: the HTTP cache against nginx",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() }
)
struct NginxCacheTests {
    /// The log lines of `probe`'s requests: exactly `count` once everything sent so far is logged (a request the
    /// cache should have answered is a line too many).
    static func log(_ probe: String, count: Int) async throws -> [NginxInterop.LogLine] {
        try await NginxInterop.settledAccessLog(probe: probe, count: count)
    }

    @Test("expires 1h: the second GET is answered from the session's cache")
    func expiresIsFresh() async throws {
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = NginxInterop.probe()
        let request = try NginxInterop.request("cache/expires/a.txt", probe: probe)
        let (first, _) = try await manager.data(for: request)
        let (second, response) = try await manager.data(for: request)
        #expect(second == first)
        #expect(response.value(forHTTPHeaderField: "Age") != nil)
        #expect(try await Self.log(probe, count: 1).count == 1)
    }

    @Test("Cache-Control: no-cache: every use is revalidated with If-None-Match, and a 304 serves the stored body")
    func noCacheRevalidates() async throws {
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = NginxInterop.probe()
        let request = try NginxInterop.request("cache/no-cache/a.txt", probe: probe)
        let (first, _) = try await manager.data(for: request)
        let (second, response) = try await manager.data(for: request)
        #expect(second == first)
        #expect(response.statusCode == 200)
        let lines = try await Self.log(probe, count: 2)
        #expect(lines.map(\.status) == [200, 304])
        #expect(lines[0].ifNoneMatch == nil)
        #expect(lines[1].ifNoneMatch == response.value(forHTTPHeaderField: "ETag"))
    }

    @Test("Vary: Accept-Language: a stored response answers only the same language")
    func varySelects() async throws {
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = NginxInterop.probe()
        var request = try NginxInterop.request("cache/vary/a.txt", probe: probe)
        request.setValue("fr", forHTTPHeaderField: "Accept-Language")
        _ = try await manager.data(for: request)
        _ = try await manager.data(for: request)
        request.setValue("de", forHTTPHeaderField: "Accept-Language")
        _ = try await manager.data(for: request)
        #expect(try await Self.log(probe, count: 2).count == 2)
    }

    @Test("operations share HTTPCache.shared with .default sessions, and reloadIgnoringLocalCacheData goes out")
    func operationsAndDefaultSessionsShareTheCache() async throws {
        let probe = NginxInterop.probe()
        let operation = HTTPRequestOperation(request: try NginxInterop.request("cache/expires/a.txt", probe: probe))
        operation.securityPolicy = try NginxInterop.policy()
        await OperationFixtures.run([operation])
        #expect(operation.error == nil, "\(String(describing: operation.error))")
        #expect(operation.cachedResponse != nil, "the operation offered its response to the cache")

        var configuration = SessionConfiguration.default
        configuration.securityPolicy = try NginxInterop.policy()
        let session = URLSessionManager(configuration: configuration)
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, _) = try await session.data(for: try NginxInterop.request("cache/expires/a.txt", probe: probe))
        #expect(data == operation.responseData)
        #expect(try await Self.log(probe, count: 1).count == 1)

        var reload = try NginxInterop.request("cache/expires/a.txt", probe: probe)
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        _ = try await session.data(for: reload)
        #expect(try await Self.log(probe, count: 2).count == 2)
    }

    @Test("courier get --cache DIR: a second process is answered from the disk cache")
    func diskCacheServesASecondProcess() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let folder = try Fixtures.temporaryDirectory("cli-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url("cache/expires/a.txt", probe: probe).absoluteString
        let first = try await CLIRequestTests.courier(["get", "--cacert", ca, "--cache", folder.path, url])
        let second = try await CLIRequestTests.courier(["get", "--verbose", "--cacert", ca, "--cache", folder.path, url])
        #expect(first.status == 0 && second.status == 0, "\(first.standardError) \(second.standardError)")
        #expect(second.standardOutput.hasSuffix("cached by expires\n"))
        #expect(second.standardError.contains("answered from the cache"))
        #expect(try await Self.log(probe, count: 1).count == 1)
    }

    @Test("courier download and batch --cache DIR: later processes save the cached bytes without a request")
    func diskCacheServesDownloadsAndBatches() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let folder = try Fixtures.temporaryDirectory("cli-cache-download")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache").path
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url("cache/expires/a.txt", probe: probe).absoluteString
        let first = folder.appendingPathComponent("first.txt"), second = folder.appendingPathComponent("second.txt")
        let fetched = try await CLIRequestTests.courier(["download", "--cacert", ca, "--cache", cache, "-o", first.path, url])
        let cached = try await CLIRequestTests.courier(["download", "--cacert", ca, "--cache", cache, "-o", second.path, url])
        #expect(fetched.status == 0 && cached.status == 0, "\(fetched.standardError) \(cached.standardError)")
        let bytes = try Data(contentsOf: first)
        let again = try Data(contentsOf: second)
        #expect(!bytes.isEmpty && again == bytes)

        let list = folder.appendingPathComponent("list.txt")
        try Data("\(url)\tthird.txt\n".utf8).write(to: list)
        let batch = try await CLIRequestTests.courier(["batch", list.path, "--output-dir", folder.path, "--cacert", ca, "--cache", cache])
        #expect(batch.status == 0, "\(batch.standardOutput)\(batch.standardError)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("third.txt")) == bytes)
        #expect(try await Self.log(probe, count: 1).count == 1, "the second download and the batch were answered from the cache")

        let uncached = try await CLIRequestTests.courier(["download", "--cacert", ca, "-o", folder.appendingPathComponent("fourth.txt").path, url])
        #expect(uncached.status == 0, "\(uncached.standardError)")
        #expect(try await Self.log(probe, count: 2).count == 2, "without --cache the download is fetched")
    }
}

@Suite(
    "Interop: the HTTP cache against httpbin",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct HTTPBinCacheTests {
    static func manager() -> URLSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = Fixtures.transport
        let manager = URLSessionManager(configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        return manager
    }

    static func request(_ path: String, probe: String, method: String = "GET") throws -> URLRequest {
        let separator = path.contains("?") ? "&" : "?"
        var request = URLRequest(url: try #require(URL(string: path + separator + "probe=" + probe, relativeTo: HTTPBinServer.base)?.absoluteURL))
        request.httpMethod = method
        return request
    }

    /// The statuses gunicorn logged for `probe`'s requests, sorted, once `expected` requests are logged.
    ///
    /// Sorted, not in the log's order: each of gunicorn's two workers writes its line after its response has gone, so
    /// a second request answered by the other worker can be logged first (seen once under the ThreadSanitizer run).
    /// Nothing is lost for these tests: a 304 answers only a request carrying the stored validator, so it can never
    /// be the first, and the tests' other statuses are all 200.
    static func statuses(_ probe: String, expected: Int) async throws -> [String] {
        try await HTTPBinServer.accessLog(probe: probe, count: expected).map { line in
            // `... "GET /path?probe=… HTTP/1.1" 200 123 ...`: the field after the quoted request line.
            line.components(separatedBy: "\" ").dropFirst().first.map { String($0.prefix(3)) } ?? "?"
        }.sorted()
    }

    @Test("/cache/60 (max-age=60) is answered from the cache")
    func maxAge() async throws {
        let manager = Self.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = UUID().uuidString
        _ = try await manager.data(for: Self.request("cache/60", probe: probe))
        _ = try await manager.data(for: Self.request("cache/60", probe: probe))
        #expect(try await Self.statuses(probe, expected: 1) == ["200"])
    }

    @Test("/cache (Last-Modified and ETag) is revalidated and httpbin's 304 serves the stored body")
    func lastModifiedAndETag() async throws {
        let manager = Self.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = UUID().uuidString
        // httpbin's Last-Modified is the current time, so the heuristic gives no freshness: the second use asks.
        let (first, _) = try await manager.data(for: Self.request("cache", probe: probe))
        let (second, response) = try await manager.data(for: Self.request("cache", probe: probe))
        #expect(second == first)
        #expect(response.statusCode == 200)
        #expect(try await Self.statuses(probe, expected: 2) == ["200", "304"])
    }

    @Test("/etag/{etag}: revalidated with If-None-Match")
    func etag() async throws {
        let manager = Self.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = UUID().uuidString
        _ = try await manager.data(for: Self.request("etag/v42", probe: probe))
        _ = try await manager.data(for: Self.request("etag/v42", probe: probe))
        #expect(try await Self.statuses(probe, expected: 2) == ["200", "304"])
    }

    @Test("/response-headers: no-store is never stored; a POST to a stored URL invalidates it")
    func noStoreAndInvalidation() async throws {
        let manager = Self.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let noStore = UUID().uuidString
        _ = try await manager.data(for: Self.request("response-headers?Cache-Control=no-store", probe: noStore))
        _ = try await manager.data(for: Self.request("response-headers?Cache-Control=no-store", probe: noStore))
        #expect(try await Self.statuses(noStore, expected: 2) == ["200", "200"])

        let probe = UUID().uuidString
        let path = "response-headers?Cache-Control=max-age%3D60"
        _ = try await manager.data(for: Self.request(path, probe: probe))
        _ = try await manager.data(for: Self.request(path, probe: probe))
        _ = try await manager.data(for: Self.request(path, probe: probe, method: "POST"))
        _ = try await manager.data(for: Self.request(path, probe: probe))
        #expect(try await Self.statuses(probe, expected: 3) == ["200", "200", "200"], "GET, POST, GET again: the stored GET was invalidated")
    }
}
