import ArgumentParser
import Courier
import CourierTestServer
import Crypto
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier tour`: starts the embedded test server and walks through Courier's capabilities
/// with real traffic. Exits 0 only when every step behaved as expected.
struct TourCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "A guided tour of Courier against its embedded test server on 127.0.0.1."
    )

    func run() async throws {
        let server = try await TestServer.start()
        let transport = AsyncHTTPClientTransport()
        let tour = Tour(base: server.baseURL, transport: transport)
        print("Courier tour against the embedded test server at \(server.baseURL.absoluteString)\n")
        let failures = await tour.runAll()
        try? await transport.shutdown()
        try? await server.shutdown()
        print()
        if failures == 0 {
            print("All \(tour.steps.count) steps behaved as expected.")
        } else {
            throw CLIFailure(status: .network, message: "\(failures) of \(tour.steps.count) tour steps failed")
        }
    }
}

/// The tour's steps; each returns a one-line summary or throws what went wrong.
struct Tour {
    let base: URL
    let transport: any HTTPTransport

    struct Step {
        let title: String
        let run: () async throws -> String
    }

    struct Unexpected: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    var steps: [Step] {
        [
            Step(title: "JSON GET", run: jsonGet),
            Step(title: "Form POST", run: formPost),
            Step(title: "JSON POST", run: jsonPost),
            Step(title: "Multipart upload with progress", run: multipartUpload),
            Step(title: "Download paused and resumed", run: pausedDownload),
            Step(title: "Redirects", run: redirects),
            Step(title: "Basic and Digest authentication", run: authentication),
            Step(title: "Cookies", run: cookies),
            Step(title: "Timeouts", run: timeout),
        ]
    }

    func runAll() async -> Int {
        var failures = 0
        for (index, step) in steps.enumerated() {
            let started = ContinuousClock.now
            do {
                let summary = try await step.run()
                let elapsed = (ContinuousClock.now - started).formatted(.units(allowed: [.milliseconds]))
                print(String(format: "%2d. ✔ %@ — %@ (%@)", index + 1, step.title, summary, elapsed))
            } catch {
                failures += 1
                print(String(format: "%2d. ✘ %@ — %@", index + 1, step.title, "\(error)"))
            }
        }
        return failures
    }

    // MARK: Plumbing

    private func url(_ path: String) throws -> URL {
        guard let url = URL(string: path, relativeTo: base)?.absoluteURL else { throw Unexpected("bad path \(path)") }
        return url
    }

    private func send(_ request: URLRequest, configure: (inout ExchangeConfiguration) -> Void = { _ in }) async throws -> ExchangeResult {
        var configuration = ExchangeConfiguration(transport: transport)
        configure(&configuration)
        return try await Exchange(request: request, configuration: configuration).result()
    }

    private func json(_ result: ExchangeResult) throws -> [String: Any] {
        guard let object = try JSONResponseSerializer().responseObject(for: result.response, data: result.data) as? [String: Any] else {
            throw Unexpected("the response is not a JSON object")
        }
        return object
    }

    // MARK: Steps

    private func jsonGet() async throws -> String {
        let result = try await send(URLRequest(url: url("/json")))
        let slideshow = try json(result)["slideshow"] as? [String: Any]
        guard let title = slideshow?["title"] as? String else { throw Unexpected("no slideshow title") }
        return "GET /json → \(result.response.statusCode), slideshow \"\(title)\""
    }

    private func formPost() async throws -> String {
        let request = try HTTPRequestSerializer().request(method: "POST", urlString: url("/post").absoluteString,
                                                          parameters: ["name": "Courier", "tags": ["swift", "http"]])
        let form = try json(try await send(request))["form"] as? [String: Any]
        guard form?["name"] as? String == "Courier" else { throw Unexpected("form echo was \(String(describing: form))") }
        return "name=Courier&tags[]=swift&tags[]=http echoed back"
    }

    private func jsonPost() async throws -> String {
        let request = try JSONRequestSerializer().request(method: "POST", urlString: url("/post").absoluteString,
                                                          parameters: ["answer": 42, "nested": ["ok": true]])
        let echoed = try json(try await send(request))["json"] as? [String: Any]
        guard echoed?["answer"] as? Int == 42 else { throw Unexpected("json echo was \(String(describing: echoed))") }
        return "{\"answer\":42,…} echoed back"
    }

    private func multipartUpload() async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tour-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let payload = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try payload.write(to: file)
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: url("/upload").absoluteString,
                                                                       parameters: ["note": "tour"]) { form in
            try form.appendPart(withFileURL: file, name: "file")
        }
        let updates = Atomic<Int>(0)
        let result = try await send(request) { configuration in
            configuration.uploadProgress = { _ in updates.add(1, ordering: .relaxed) }
        }
        let parts = try json(result)["parts"] as? [[String: Any]] ?? []
        let expected = SHA256.hash(data: payload).map { String(format: "%02x", $0) }.joined()
        guard let part = parts.first(where: { $0["name"] as? String == "file" }), part["sha256"] as? String == expected else {
            throw Unexpected("the server saw \(parts)")
        }
        return "2 MiB file part, server SHA-256 matches, \(updates.load(ordering: .relaxed)) progress updates"
    }

    private func pausedDownload() async throws -> String {
        let path = "/bytes/\(32 << 20)?seed=2026"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tour-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let received = Atomic<Int64>(0)
        var configuration = ExchangeConfiguration(transport: transport)
        configuration.sink = .file(file)
        configuration.downloadProgress = { received.store($0.totalBytes, ordering: .relaxed) }
        let exchange = Exchange(request: URLRequest(url: try url(path)), configuration: configuration)
        exchange.start()
        while received.load(ordering: .relaxed) < 1 << 20 { try await Task.sleep(for: .milliseconds(5)) }
        exchange.pause()
        try await Task.sleep(for: .milliseconds(100))
        let atPause = received.load(ordering: .relaxed)
        try await Task.sleep(for: .seconds(1))
        guard received.load(ordering: .relaxed) == atPause else { throw Unexpected("bytes arrived while paused") }
        exchange.resume()
        _ = try await exchange.result()

        let reference = try await send(URLRequest(url: try url(path)))
        let fileHash = SHA256.hash(data: try Data(contentsOf: file)).map { String(format: "%02x", $0) }.joined()
        let referenceHash = SHA256.hash(data: reference.data ?? Data()).map { String(format: "%02x", $0) }.joined()
        guard fileHash == referenceHash else { throw Unexpected("SHA-256 mismatch") }
        return "32 MiB to a file, paused 1 s at \(atPause >> 20) MiB, SHA-256 \(fileHash.prefix(12))… matches"
    }

    private func redirects() async throws -> String {
        let hops = Atomic<Int>(0)
        let result = try await send(URLRequest(url: url("/redirect/3"))) { configuration in
            configuration.redirectHandler = { proposed, _ in
                hops.add(1, ordering: .relaxed)
                return proposed
            }
        }
        guard result.redirectCount == 3, hops.load(ordering: .relaxed) == 3 else { throw Unexpected("\(result.redirectCount) redirects") }
        return "/redirect/3 → \(result.request.url?.path ?? "?") after 3 hops, each seen by the redirect hook"
    }

    private func authentication() async throws -> String {
        let credential = URLCredential(user: "courier", password: "secret", persistence: .none)
        var statuses: [Int] = []
        for path in ["/basic-auth/courier/secret", "/digest-auth/auth/courier/secret/MD5", "/digest-auth/auth/courier/secret/SHA-256"] {
            statuses.append(try await send(URLRequest(url: url(path))) { $0.credential = credential }.response.statusCode)
        }
        let wrong = try await send(URLRequest(url: url("/basic-auth/courier/secret"))) {
            $0.credential = URLCredential(user: "courier", password: "wrong", persistence: .none)
        }
        guard statuses == [200, 200, 200], wrong.response.statusCode == 401 else { throw Unexpected("statuses \(statuses), wrong \(wrong.response.statusCode)") }
        return "Basic, Digest MD5 and Digest SHA-256 → 200; a wrong password → 401 without retry loops"
    }

    private func cookies() async throws -> String {
        let jar = CookieJar()
        let result = try await send(URLRequest(url: url("/cookies/set?flavour=oatmeal"))) { $0.cookieJar = jar }
        let cookies = try json(result)["cookies"] as? [String: String]
        guard cookies?["flavour"] == "oatmeal" else { throw Unexpected("cookies were \(String(describing: cookies))") }
        return "Set-Cookie stored, then sent back after the redirect: flavour=oatmeal"
    }

    private func timeout() async throws -> String {
        do {
            _ = try await send(URLRequest(url: url("/delay/3"), timeoutInterval: 0.5))
            throw Unexpected("the request did not time out")
        } catch let error as URLError where error.code == .timedOut {
            return "/delay/3 with a 0.5 s timeout → URLError(.timedOut)"
        }
    }
}
