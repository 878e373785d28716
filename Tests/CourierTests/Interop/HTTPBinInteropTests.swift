import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The exchange against httpbin (from PyPI, under gunicorn), a server nobody here wrote.
/// The suite starts it with `scripts/httpbin-test-server start` (see ``ExternalServer``).
@Suite(
    "Interop: httpbin under gunicorn",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct HTTPBinInteropTests {
    let base: URL

    init() throws {
        base = try #require(HTTPBinServer.base)
    }

    func exchange(
        _ path: String, method: String = "GET", body: Data? = nil, timeout: TimeInterval = 30,
        configure: (inout ExchangeConfiguration) -> Void = { _ in }
    ) async throws -> ExchangeResult {
        var request = URLRequest(url: try #require(URL(string: path, relativeTo: base)?.absoluteURL), timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configure(&configuration)
        return try await Exchange(request: request, configuration: configuration).result()
    }

    @Test func getEchoesTheQuery() async throws {
        let echo = try Fixtures.json(try await exchange("/get?flavour=oat&n=1"))
        #expect(echo["args"] as? [String: String] == ["flavour": "oat", "n": "1"])
    }

    @Test func redirectChains() async throws {
        for path in ["/redirect/3", "/relative-redirect/3", "/absolute-redirect/3"] {
            let result = try await exchange(path)
            #expect(result.response.statusCode == 200, "\(path)")
            #expect(result.redirectCount == 3, "\(path)")
        }
    }

    @Test(arguments: [303, 307, 308])
    func redirectToKeepsOrDropsTheBody(status: Int) async throws {
        // httpbin echoes the body as text in "data" (the in-process server reports its SHA-256 instead).
        let target = "/anything".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let result = try await exchange("/redirect-to?url=\(target)&status_code=\(status)", method: "POST", body: Data("kept=\(status)".utf8))
        let echo = try Fixtures.json(result)
        if status == 303 {
            #expect(echo["method"] as? String == "GET")
            #expect(echo["data"] as? String == "")
        } else {
            #expect(echo["method"] as? String == "POST")
            #expect(echo["data"] as? String == "kept=\(status)")
        }
    }

    @Test func basicAuthentication() async throws {
        let good = try await exchange("/basic-auth/u/p") { $0.credential = URLCredential(user: "u", password: "p", persistence: .none) }
        #expect(good.response.statusCode == 200)
        let wrong = try await exchange("/basic-auth/u/p") { $0.credential = URLCredential(user: "u", password: "x", persistence: .none) }
        #expect(wrong.response.statusCode == 401)
    }

    @Test(arguments: ["MD5", "SHA-256"])
    func digestAuthentication(algorithm: String) async throws {
        // httpbin also insists on the cookie it sets with its challenge, so the cookie jar takes part.
        let result = try await exchange("/digest-auth/auth/u/p/\(algorithm)") { configuration in
            configuration.credential = URLCredential(user: "u", password: "p", persistence: .none)
            configuration.cookieJar = CookieJar()
        }
        #expect(result.response.statusCode == 200)
        #expect(try Fixtures.json(result)["authenticated"] as? Bool == true)
    }

    @Test func cookiesSetSentAndDeleted() async throws {
        let jar = CookieJar()
        let set = try await exchange("/cookies/set?a=1&b=2") { $0.cookieJar = jar }
        #expect(try Fixtures.json(set)["cookies"] as? [String: String] == ["a": "1", "b": "2"])
        let deleted = try await exchange("/cookies/delete?a") { $0.cookieJar = jar }
        #expect(try Fixtures.json(deleted)["cookies"] as? [String: String] == ["b": "2"])
    }

    @Test func bodiesBothWays() async throws {
        // httpbin caps /bytes at 100 KiB.
        let bytes = try await exchange("/bytes/102400?seed=3")
        #expect(bytes.data?.count == 102_400)
        let chunked = try await exchange("/stream-bytes/50000?seed=3&chunk_size=777")
        #expect(chunked.data?.count == 50_000)
        let text = String(repeating: "courier ", count: 20_000)
        let posted = try Fixtures.json(try await exchange("/post", method: "POST", body: Data(text.utf8)) { configuration in
            configuration.body = .asyncSequence(AsyncStream { continuation in
                continuation.yield(Data(text.utf8))
                continuation.finish()
            })
        })
        #expect(posted["data"] as? String == text)
    }

    @Test func multipartUpload() async throws {
        let content = "line one\nline two ✓\n"
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: base.appendingPathComponent("post").absoluteString, parameters: ["note": "hi"]
        ) { form in
            form.appendPart(withFileData: Data(content.utf8), name: "file", fileName: "notes.txt", mimeType: "text/plain")
        }
        let echo = try Fixtures.json(try await Exchange(request: request, configuration: .init(transport: Fixtures.transport)).result())
        // httpbin echoes file contents (the in-process server reports size and SHA-256).
        #expect(echo["files"] as? [String: String] == ["file": content])
        #expect(echo["form"] as? [String: String] == ["note": "hi"])
    }

    @Test func readTimeout() async throws {
        await #expect { _ = try await exchange("/delay/3", timeout: 1) } throws: { ($0 as? URLError)?.code == .timedOut }
    }

    @Test func rangeResumption() async throws {
        let full = try await exchange("/range/4096")
        let fullData = try #require(full.data)
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try fullData.prefix(1000).write(to: file)
        let result = try await exchange("/range/4096") { configuration in
            configuration.sink = .file(file)
            configuration.resumption = DownloadResumption(offset: 1000, response: full.response)
        }
        #expect(result.response.statusCode == 206)
        #expect(result.resumption == .continued(from: 1000))
        #expect(try Data(contentsOf: file) == fullData)
    }
}

/// Where httpbin runs, from `COURIER_HTTPBIN_URL` (see ``ExternalServer``); `nil` when unset or not a URL with a host.
enum HTTPBinServer {
    static var base: URL? {
        ExternalServers.httpbin.variables["COURIER_HTTPBIN_URL"]
            .flatMap { URL(string: $0) }
            .flatMap { $0.host == nil ? nil : $0 }
    }

    /// gunicorn's access log (scripts/httpbin-test-server).
    static var accessLogPath: String? { ExternalServers.httpbin.variables["COURIER_HTTPBIN_ACCESS_LOG"] }

    /// The access log's lines that contain `probe`, once there are at least `count` (gunicorn writes a line just
    /// after the response; waited for up to 5 s) and no more came for 100 ms. gunicorn's two workers write in
    /// no fixed order, so a marker request (as nginx's ``NginxInterop/settledAccessLog(probe:count:)``) cannot
    /// tell that a line is not coming: the window is the claim.
    static func accessLog(probe: String, count: Int) async throws -> [String] {
        let path = try #require(accessLogPath)
        @Sendable func lines() -> [String] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).filter { $0.contains(probe) }
        }
        _ = await eventually(timeout: .seconds(5)) { lines().count >= count }
        let seen = lines().count
        _ = await throughout(.milliseconds(100)) { lines().count == seen }
        return lines()
    }

    /// Starts httpbin if needed; whether it runs.
    static func isRunning() async -> Bool {
        await ExternalServers.httpbin.isRunning() && base != nil
    }
}
