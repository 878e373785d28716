import Foundation
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Operations, sessions and the exchange against nginx (TLS, HTTP/2, static files with ETag,
/// Last-Modified and Range), a server nobody here wrote. `.ci/run` starts it with
/// `scripts/nginx-test-server start`, which also exports where nginx's files and access log are:
/// the tests read the log to see the `Range` and `If-Range` headers nginx received, and rewrite a
/// file of their own in nginx's root to change its ETag.
///
/// The assertions mirror the in-process server's tests (HTTPRequestOperationResumeTests and
/// ResumableDownloadTests, whose pause and resume helpers they reuse, and ResumptionTests). Where nginx differs: its ETag is the file's mtime and
/// size in hex, so a rewritten file gets a new one only when one of them changes (the tests change
/// both); a cancelled transfer is logged with status 200 and the bytes nginx had sent.
@Suite(
    "Interop: nginx (TLS, HTTP/2, static files)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .serialized,
    .timeLimit(.minutes(2))
)
struct NginxInteropTests {
    /// The big static file (32 MiB of random bytes).
    static let bigFile = "bytes-32m.bin"

    // MARK: HTTPRequestOperation pause and resume (issue #5)

    enum OperationOutput: String, CaseIterable, CustomTestStringConvertible {
        case file, outputStream, memory
        var testDescription: String { rawValue }
    }

    @Test("operation paused mid-transfer and resumed: Range + If-Range, 206, the bytes match the file on disk", arguments: OperationOutput.allCases)
    func operationPauseAndResume(output: OperationOutput) async throws {
        let probe = NginxInterop.probe()
        let operation = HTTPRequestOperation(request: URLRequest(url: try NginxInterop.url(Self.bigFile, probe: probe), timeoutInterval: 30))
        operation.securityPolicy = try NginxInterop.policy()
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        switch output {
        case .file: operation.outputFileURL = file
        case .outputStream: operation.outputStream = OutputStream(toFileAtPath: file.path, append: false)
        case .memory: break
        }

        try await HTTPRequestOperationResumeTests().pauseAndResume(operation)

        #expect(operation.error == nil)
        #expect(operation.response?.statusCode == 206)
        let expected = try sha256Hex(ofFile: try NginxInterop.servedFile(Self.bigFile))
        switch output {
        case .file, .outputStream:
            #expect(operation.responseData == nil)
            #expect(try sha256Hex(ofFile: file) == expected)
        case .memory:
            #expect(operation.responseData?.sha256Hex == expected)
        }

        // What nginx received: the whole file asked for first, then the rest with Range + If-Range.
        let entityTag = try #require(operation.response?.value(forHTTPHeaderField: "ETag"))
        let log = try await NginxInterop.accessLog(probe: probe, count: 2)
        #expect(log.map(\.method) == ["GET", "GET"])
        #expect(log[0].range == nil && log[0].ifRange == nil)
        #expect(log[1].status == 206)
        #expect(log[1].ifRange == entityTag)
        let offset = try #require(log[1].rangeStart, "\(log[1])")
        #expect(offset > 0 && offset < Int64(32 << 20))
        #expect(log[1].bytesSent == Int64(32 << 20) - offset)
        #expect(log.allSatisfy { $0.protocolVersion == "HTTP/2.0" })
    }

    // MARK: Session download task, resume data

    @Test("download task cancelled with resume data, resumed by a new task: 206 and the same SHA-256")
    func sessionResumeData() async throws {
        let probe = NginxInterop.probe()
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let resumeData = try await ResumableDownloadTests.interruptedDownload(manager, request: try NginxInterop.request(Self.bigFile, probe: probe))
        let decoded = try DownloadResumeData(data: resumeData)
        #expect(decoded.resumption.offset > 0 && decoded.resumption.offset < Int64(32 << 20))
        #expect(decoded.resumption.entityTag != nil, "nginx sends an ETag")
        #expect(try NginxInterop.size(of: URL(fileURLWithPath: decoded.partialFilePath)) == decoded.resumption.offset)

        let outcome = try await ResumableDownloadTests.resume(manager, resumeData, size: 32 << 20)
        #expect(outcome.status == 206)
        #expect(outcome.offset == decoded.resumption.offset)
        #expect(outcome.expected == Int64(32 << 20))
        #expect(try outcome.sha == sha256Hex(ofFile: NginxInterop.servedFile(Self.bigFile)))
        #expect(!FileManager.default.fileExists(atPath: decoded.partialFilePath), "the partial file became the download")

        let log = try await NginxInterop.accessLog(probe: probe, count: 2)
        #expect(log[1].status == 206)
        #expect(log[1].rangeStart == decoded.resumption.offset)
        #expect(log[1].ifRange == decoded.resumption.entityTag)
    }

    @Test("the file changed between cancel and resume (new ETag): a clean restart with the new bytes")
    func sessionResumeAfterTheFileChanged() async throws {
        let name = "changing-\(UUID().uuidString).bin"
        let served = try NginxInterop.servedFile(name)
        defer { try? FileManager.default.removeItem(at: served) }
        try NginxInterop.writeServedFile(served, size: 16 << 20, modified: Date(timeIntervalSinceNow: -3600))

        let probe = NginxInterop.probe()
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let resumeData = try await ResumableDownloadTests.interruptedDownload(manager, request: try NginxInterop.request(name, probe: probe))
        let oldTag = try #require(try DownloadResumeData(data: resumeData).resumption.entityTag)

        // A different size and mtime: nginx's ETag is made of both.
        try NginxInterop.writeServedFile(served, size: (16 << 20) + 4097, modified: Date())
        let outcome = try await ResumableDownloadTests.resume(manager, resumeData, size: (16 << 20) + 4097)
        #expect(outcome.status == 200)
        #expect(outcome.offset == 0)
        #expect(outcome.expected == Int64((16 << 20) + 4097))
        #expect(try outcome.sha == sha256Hex(ofFile: served))

        let log = try await NginxInterop.accessLog(probe: probe, count: 2)
        #expect(log[1].ifRange == oldTag, "the resumed request asked for the rest of the old version")
        #expect(log[1].rangeStart != nil)
        #expect(log[1].status == 200, "nginx sent the whole new version")
    }

    // MARK: Plain requests through the exchange

    @Test("GET over HTTP/2, and over HTTP/1.1 with an HTTP/1.1-only transport", arguments: [true, false])
    func plainGet(http2: Bool) async throws {
        let transport = try NginxInterop.transport { $0.httpVersion = http2 ? .automatic : .http1Only }
        let probe = NginxInterop.probe()
        let result = try await NginxInterop.exchange(try NginxInterop.url("hello.txt", probe: probe), transport: transport)
        try await transport.shutdown()
        let expectedVersion = http2 ? "HTTP/2.0" : "HTTP/1.1"
        #expect(result.response.statusCode == 200)
        #expect(try result.data == Data(contentsOf: NginxInterop.servedFile("hello.txt")))
        #expect(result.response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(result.metrics.transactions.map(\.httpVersion) == [expectedVersion])
        #expect(try await NginxInterop.accessLog(probe: probe, count: 1).first?.protocolVersion == expectedVersion)
    }

    /// ``TransportSettings/connectionPorts`` (curl's `--connect-to` with a port): a URL naming `localhost:1`, where
    /// nothing listens, reaches nginx's port, over HTTP/2 and HTTP/1.1; TLS checked the certificate for localhost
    /// (the policy refuses another name), and the stages saw the URL as written.
    @Test("a URL's port mapped to nginx's: the bytes arrive, over both versions", arguments: [true, false])
    func connectionPortsSendTheConnectionToAnotherPort(http2: Bool) async throws {
        let port = try #require(NginxServer.url?.port)
        let transport = try NginxInterop.transport {
            $0.httpVersion = http2 ? .automatic : .http1Only
            $0.settings.resolvedHosts = ["localhost": "127.0.0.1"]
            $0.settings.connectionPorts = [TransportSettings.Endpoint(host: "localhost", port: 1): port]
        }
        defer { Task { try? await transport.shutdown() } }
        let probe = NginxInterop.probe()
        let url = try #require(URL(string: "https://localhost:1/hello.txt?probe=\(probe)"))
        let result = try await NginxInterop.exchange(url, transport: transport)
        #expect(result.response.statusCode == 200)
        #expect(result.response.url == url)
        #expect(try result.data == Data(contentsOf: NginxInterop.servedFile("hello.txt")))
        let log = try await NginxInterop.accessLog(probe: probe, count: 1)
        #expect(log.first?.protocolVersion == (http2 ? "HTTP/2.0" : "HTTP/1.1"))
        // Port 2 has no entry: the request goes to port 2 and finds nothing there.
        await #expect(throws: URLError.self) {
            _ = try await NginxInterop.exchange(try #require(URL(string: "https://localhost:2/hello.txt")), transport: transport)
        }
    }

    /// nginx ends an HTTP/2 connection with a GOAWAY after 1,000 requests (`keepalive_requests`); the streams opened
    /// after its last stream ID were not processed and go again on a new connection, so none of 3,000 GETs sent 32 at
    /// a time fails. (The soak found some failing with `StreamClosed(.cancel)` before they were retried.)
    @Test func http2StreamsDroppedByAGoAwayAreSentAgain() async throws {
        let transport = try NginxInterop.transport()
        let url = try NginxInterop.url("hello.txt")
        let expected = try Data(contentsOf: NginxInterop.servedFile("hello.txt"))
        let outcome = await withTaskGroup(of: (failures: [String], retries: Int).self) { group in
            for worker in 0..<32 {
                group.addTask {
                    var failures: [String] = [], retries = 0
                    for _ in stride(from: worker, to: 3_000, by: 32) {
                        do {
                            let result = try await NginxInterop.exchange(url, transport: transport)
                            if result.response.statusCode != 200 || result.data != expected { failures.append("status \(result.response.statusCode)") }
                            retries += result.metrics.transactions.map(\.staleConnectionRetries).reduce(0, +)
                        } catch {
                            failures.append("\(error)")
                        }
                    }
                    return (failures, retries)
                }
            }
            return await group.reduce(into: (failures: [String](), retries: 0)) { $0.failures += $1.failures; $0.retries += $1.retries }
        }
        try await transport.shutdown()
        #expect(outcome.failures.isEmpty, "\(outcome.failures.count) failed: \(outcome.failures.prefix(3))")
        print("HTTP/2 GOAWAY: 3,000 GETs, \(outcome.retries) sent again on a new connection")
    }

    @Test func head() async throws {
        let transport = try NginxInterop.transport()
        let probe = NginxInterop.probe()
        let result = try await NginxInterop.exchange(try NginxInterop.url("bytes-1m.bin", probe: probe), method: "HEAD", transport: transport)
        try await transport.shutdown()
        #expect(result.response.statusCode == 200)
        #expect(result.response.value(forHTTPHeaderField: "Content-Length") == "1048576")
        #expect(result.response.value(forHTTPHeaderField: "ETag") != nil)
        #expect(result.response.value(forHTTPHeaderField: "Last-Modified") != nil)
        #expect(result.response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
        #expect(result.data?.isEmpty ?? true)
        #expect(try await NginxInterop.accessLog(probe: probe, count: 1).first?.method == "HEAD")
    }

    @Test("DownloadResumption continues with a 206 and identical bytes")
    func rangeContinues() async throws {
        let transport = try NginxInterop.transport()
        defer { Task { try? await transport.shutdown() } }
        let url = try NginxInterop.url("bytes-1m.bin")
        let full = try await NginxInterop.exchange(url, transport: transport)
        let fullData = try #require(full.data)
        #expect(try fullData == Data(contentsOf: NginxInterop.servedFile("bytes-1m.bin")))
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try fullData.prefix(100_003).write(to: file)
        let result = try await NginxInterop.exchange(url, transport: transport) { configuration in
            configuration.sink = .file(file)
            configuration.resumption = DownloadResumption(offset: 100_003, response: full.response)
        }
        #expect(result.response.statusCode == 206)
        #expect(result.resumption == .continued(from: 100_003))
        #expect(result.bytesReceived == Int64(fullData.count - 100_003))
        #expect(result.request.value(forHTTPHeaderField: "Range") == "bytes=100003-")
        #expect(result.request.value(forHTTPHeaderField: "If-Range") == full.response.value(forHTTPHeaderField: "ETag"))
        #expect(try Data(contentsOf: file).sha256Hex == fullData.sha256Hex)
    }

    @Test("an If-Range that no longer matches gets the whole file (200): a clean restart")
    func ifRangeMismatchRestarts() async throws {
        let transport = try NginxInterop.transport()
        defer { Task { try? await transport.shutdown() } }
        let url = try NginxInterop.url("bytes-1m.bin")
        let reference = try Data(contentsOf: try NginxInterop.servedFile("bytes-1m.bin"))
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(repeating: 0xAB, count: 300_000).write(to: file)
        let result = try await NginxInterop.exchange(url, transport: transport) { configuration in
            configuration.sink = .file(file)
            configuration.resumption = DownloadResumption(offset: 300_000, entityTag: "\"stale-0\"")
        }
        #expect(result.response.statusCode == 200)
        #expect(result.resumption == .restarted)
        #expect(try Data(contentsOf: file).sha256Hex == reference.sha256Hex)
    }

    @Test("kept bytes equal to the whole file: nginx answers 416 and the file is already complete")
    func alreadyComplete() async throws {
        let transport = try NginxInterop.transport()
        defer { Task { try? await transport.shutdown() } }
        let url = try NginxInterop.url("bytes-1m.bin")
        let full = try await NginxInterop.exchange(url, transport: transport)
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try #require(full.data).write(to: file)
        let result = try await NginxInterop.exchange(url, transport: transport) { configuration in
            configuration.sink = .file(file)
            configuration.resumption = DownloadResumption(offset: Int64(1 << 20), response: full.response)
        }
        #expect(result.response.statusCode == 416)
        #expect(result.resumption == .alreadyComplete)
        #expect(try Data(contentsOf: file).sha256Hex == full.data?.sha256Hex)
    }
}

/// The nginx of `scripts/nginx-test-server` as the interop tests use it: its files, its access log,
/// a policy trusting its CA, and helpers shared by the tests above.
enum NginxInterop {
    static var root: URL? { NginxServer.environment["COURIER_NGINX_ROOT"].map { URL(fileURLWithPath: $0) } }
    static var accessLogPath: String? { NginxServer.environment["COURIER_NGINX_ACCESS_LOG"] }

    /// Starts nginx if needed; whether it runs with its files and access log.
    static func isRunning() async -> Bool {
        await NginxServer.isRunning() && root != nil && accessLogPath != nil
    }

    /// One policy instance trusting nginx's CA, so operations share one connection pool.
    private static let sharedPolicy = Result { () throws -> SecurityPolicy in
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        return policy
    }

    /// The default policy with nginx's CA among the trusted roots.
    static func policy() throws -> SecurityPolicy { try sharedPolicy.get() }

    /// A transport enforcing ``policy()``; `configure` adjusts the rest. Shut it down when done.
    static func transport(configure: (inout EngineTransport.Configuration) -> Void = { _ in }) throws -> EngineTransport {
        var configuration = EngineTransport.Configuration()
        configuration.securityPolicy = try policy()
        configure(&configuration)
        return EngineTransport(configuration: configuration)
    }

    /// An ephemeral session manager trusting nginx's CA, completing on the session tests' queue.
    static func sessionManager(configure: (inout SessionConfiguration) -> Void = { _ in }) throws -> URLSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = try policy()
        configure(&configuration)
        let manager = URLSessionManager(configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        return manager
    }

    /// A unique marker for one test's requests in the access log (nginx ignores the query of a static file).
    static func probe() -> String { UUID().uuidString }

    /// nginx's URL for `file`, with `?probe=` when given.
    static func url(_ file: String, probe: String? = nil) throws -> URL {
        let base = try #require(NginxServer.url)
        let path = probe.map { "/\(file)?probe=\($0)" } ?? "/\(file)"
        return try #require(URL(string: path, relativeTo: base)?.absoluteURL)
    }

    /// A GET of nginx's `file` with a 30 s timeout, with `?probe=` when given.
    static func request(_ file: String, probe: String? = nil) throws -> URLRequest {
        URLRequest(url: try url(file, probe: probe), timeoutInterval: 30)
    }

    /// Where nginx serves `file` from.
    static func servedFile(_ file: String) throws -> URL {
        try #require(root).appendingPathComponent(file)
    }

    /// Writes `size` random bytes to `url` (world-readable: nginx's workers run as nobody) and sets
    /// its modification date.
    static func writeServedFile(_ url: URL, size: Int, modified: Date) throws {
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        let bytes = try #require(try random.read(upToCount: size))
        try #require(bytes.count == size)
        try bytes.write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644, .modificationDate: modified], ofItemAtPath: url.path)
    }

    static func size(of url: URL) throws -> Int64 {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber).int64Value
    }

    /// Runs one exchange for `url` through `transport`.
    static func exchange(
        _ url: URL, method: String = "GET", transport: any HTTPTransport,
        configure: (inout ExchangeConfiguration) -> Void = { _ in }
    ) async throws -> ExchangeResult {
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        var configuration = ExchangeConfiguration(transport: transport)
        configure(&configuration)
        return try await Exchange(request: request, configuration: configuration).result()
    }

    /// One line of the access log (`log_format courier` in scripts/nginx-test-server).
    struct LogLine: CustomStringConvertible {
        let method: String
        let uri: String
        let status: Int
        let bytesSent: Int64
        let protocolVersion: String
        /// The Range header, nil when absent.
        let range: String?
        /// The If-Range header, nil when absent.
        let ifRange: String?
        /// The request's Accept-Encoding header, nil when absent.
        let acceptEncoding: String?
        /// The response's Content-Encoding header, nil when absent.
        let contentEncoding: String?
        /// The request's If-None-Match header, nil when absent.
        let ifNoneMatch: String?
        let description: String

        /// The first byte asked for by a `bytes=N-` range.
        var rangeStart: Int64? {
            guard let range, range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
            return Int64(range.dropFirst("bytes=".count).dropLast())
        }

        init?(_ line: String) {
            let fields = line.split(separator: " ", maxSplits: 5).map(String.init)
            guard fields.count == 6, let status = Int(fields[2]), let sent = Int64(fields[3]) else { return nil }
            let headers = Self.quotedValues(fields[5])
            guard let range = headers["range"], let ifRange = headers["if_range"] else { return nil }
            // Absent headers are logged empty (older nginx without `escape=none` writes `-`).
            func header(_ value: String?) -> String? { value == nil || value == "" || value == "-" ? nil : value }
            method = fields[0]
            uri = fields[1]
            self.status = status
            bytesSent = sent
            protocolVersion = fields[4]
            self.range = header(range)
            self.ifRange = header(ifRange)
            acceptEncoding = header(headers["ae"])
            contentEncoding = header(headers["ce"])
            ifNoneMatch = header(headers["inm"])
            description = line
        }

        /// The `key="value"` pairs of `log_format courier`, in their fixed order (values may hold quotes and spaces,
        /// as an `If-Range` entity tag does, so each value ends where the next key begins).
        private static func quotedValues(_ text: String) -> [String: String] {
            let keys = ["range", "if_range", "ae", "ce", "inm"]
            var values: [String: String] = [:]
            var rest = Substring(text)
            for (index, key) in keys.enumerated() {
                guard rest.hasPrefix(key + "=\"") else { return values }
                rest = rest.dropFirst(key.count + 2)
                let end: Substring.Index
                if index + 1 < keys.count {
                    guard let next = rest.range(of: "\" " + keys[index + 1] + "=\"") else { return values }
                    end = next.lowerBound
                } else {
                    guard rest.hasSuffix("\"") else { return values }
                    end = rest.index(before: rest.endIndex)
                }
                values[key] = String(rest[..<end])
                rest = rest[rest.index(after: end)...].drop(while: { $0 == " " })
            }
            return values
        }
    }

    /// The access log's lines for `probe` once nginx has logged every request finished before this call: exactly
    /// `count`. For a claim that a request was *not* sent: nginx (one worker, scripts/nginx-test-server) logs
    /// requests in the order it finishes them, so once a marker request sent now is logged, so is any request the
    /// client finished before it. An event to wait for, where a pause would only guess how long a line takes.
    static func settledAccessLog(probe: String, count: Int) async throws -> [LogLine] {
        let marker = Self.probe()
        _ = try await exchange(try url("hello.txt", probe: marker), transport: try markerTransport.get())
        _ = try await accessLog(probe: marker, count: 1)
        return try await accessLog(probe: probe, count: count)
    }

    /// The transport of ``settledAccessLog(probe:count:)``'s marker requests, for the whole test run.
    private static let markerTransport = Result { try transport() }

    /// The access log's lines for `probe`, waiting (bounded) until there are `count` of them:
    /// nginx writes a line when it has finished with a request, which can be just after the client is done.
    static func accessLog(probe: String, count: Int) async throws -> [LogLine] {
        let path = try #require(accessLogPath)
        @Sendable func lines() -> [LogLine] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { $0.contains("probe=\(probe)") }.compactMap { LogLine(String($0)) }
        }
        _ = await eventually(timeout: .seconds(5)) { lines().count >= count }
        let lines = lines()
        try #require(lines.count == count, "nginx logged \(lines) for probe \(probe)")
        return lines
    }
}
