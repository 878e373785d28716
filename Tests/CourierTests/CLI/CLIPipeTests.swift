import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier` in pipes, end to end with the built binary against httpbin: bodies on stdout byte for byte, bodies
/// from stdin and `--raw`, `--print`, `--offline` (httpbin's log shows nothing), any method, `--max-time` and
/// `--version`.
@Suite(
    "courier in pipes (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct CLIPipeTests {
    static func url(_ path: String) throws -> String {
        try #require(URL(string: path, relativeTo: HTTPBinServer.base)?.absoluteURL.absoluteString)
    }

    static func courier(_ arguments: [String], standardOutput: URL? = nil, standardInput: Data? = nil) async throws -> ChildProcess.Outcome {
        let outcome = try await ChildProcess.run("courier", arguments, standardOutput: standardOutput, standardInput: standardInput)
        #expect(!outcome.terminatedBySignal, "courier \(arguments.joined(separator: " ")) was killed by signal \(outcome.status)")
        return outcome
    }

    /// The bytes httpbin sends for `path`, fetched by the library.
    static func reference(_ path: String) async throws -> Data {
        let session = SessionFixtures.manager { $0.contentDecoding = nil }
        defer { session.invalidateSessionCancelingTasks(true) }
        return try await session.data(for: URLRequest(url: try #require(URL(string: try url(path))))).0
    }

    @Test(arguments: ["/image/png", "/range/70000", "/json"])
    func theBodyAloneGoesToAFileByteForByte(path: String) async throws {
        let file = Fixtures.temporaryFile("cli-pipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await Self.courier(["get", try Self.url(path)], standardOutput: file)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let written = try Data(contentsOf: file)
        #expect(written == (try await Self.reference(path)), "\(written.count) bytes written")
        #expect(!written.isEmpty)
    }

    @Test func aPipedJSONBodyIsSentAsJSON() async throws {
        let outcome = try await Self.courier(["post", try Self.url("/post")], standardInput: Data(#"{"a":1,"b":[true,null]}"#.utf8))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let echo = try CLIRequestTests.json(outcome)
        #expect((echo["json"] as? [String: Any])?["a"] as? Int == 1)
        #expect((echo["headers"] as? [String: String])?["Content-Type"] == "application/json")
    }

    @Test func aPipedBinaryBodyIsSentAsOctetStreamOrAsTheGivenType() async throws {
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let outcome = try await Self.courier(["put", try Self.url("/put")], standardInput: bytes)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let echo = try CLIRequestTests.json(outcome)
        #expect((echo["headers"] as? [String: String])?["Content-Type"] == "application/octet-stream")
        #expect((echo["headers"] as? [String: String])?["Content-Length"] == "4096")
        let data = try #require(echo["data"] as? String)
        #expect(data == "data:application/octet-stream;base64," + bytes.base64EncodedString())

        let typed = try await Self.courier(["post", "--content-type", "text/csv", try Self.url("/post")], standardInput: Data("a,b\n1,2\n".utf8))
        #expect((try CLIRequestTests.json(typed)["headers"] as? [String: String])?["Content-Type"] == "text/csv")
        #expect(try CLIRequestTests.json(typed)["data"] as? String == "a,b\n1,2\n")
    }

    @Test func rawTextIsTheBodyAndCannotBeMixedWithFields() async throws {
        let outcome = try await Self.courier(["post", "--raw", "hello there", try Self.url("/post")])
        #expect(try CLIRequestTests.json(outcome)["data"] as? String == "hello there")
        let mixed = try await Self.courier(["post", "--raw", "x", try Self.url("/post"), "a=1"])
        #expect(mixed.status == 2)
        #expect(mixed.standardError.contains("cannot be mixed"), "\(mixed.standardError)")
    }

    @Test func printChoosesTheParts() async throws {
        let heads = try await Self.courier(["get", "--print", "Hh", try Self.url("/get?x=1")])
        #expect(heads.standardOutput.hasPrefix("GET /get?x=1 HTTP/1.1\n"), "\(heads.standardOutput)")
        #expect(heads.standardOutput.contains("\nHTTP/1.1 200 OK\n"))
        #expect(heads.standardOutput.contains("Content-Type: application/json"))
        #expect(!heads.standardOutput.contains("\"args\""), "no body asked for")

        let bad = try await Self.courier(["get", "--print", "hx", try Self.url("/get")])
        #expect(bad.status == 2)
    }

    @Test func offlinePrintsTheRequestAndSendsNothing() async throws {
        let probe = UUID().uuidString
        let outcome = try await Self.courier(["post", "--offline", try Self.url("/post?probe=\(probe)"), "name=ada", "X-Trace:1"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.hasPrefix("POST /post?probe=\(probe) HTTP/1.1\n"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("X-Trace: 1"))
        #expect(outcome.standardOutput.contains(#"{"name":"ada"}"#))
        // The fields Courier adds when it sends, as -v shows them.
        #expect(outcome.standardOutput.contains("\nAccept-Encoding: gzip, deflate\n"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("\nContent-Length: 14\n"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("\nUser-Agent: courier/"), "\(outcome.standardOutput)")
        let bare = try await Self.courier(["get", "--offline", "-H", "User-Agent:", try Self.url("/get")])
        #expect(!bare.standardOutput.contains("User-Agent"), "'User-Agent:' removes it here too: \(bare.standardOutput)")
        #expect(try await HTTPBinServer.accessLog(probe: probe, count: 1).isEmpty, "httpbin received the offline request")
    }

    @Test func anyMethodGoesThroughRequest() async throws {
        let options = try await Self.courier(["request", "OPTIONS", "-p", "h", try Self.url("/get")])
        #expect(options.status == 0, "\(options.standardError)")
        #expect(options.standardOutput.hasPrefix("HTTP/1.1 200 OK"))
        #expect(options.standardOutput.contains("Allow: "), "\(options.standardOutput)")
        let bad = try await Self.courier(["request", "GE T", try Self.url("/get")])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("not an HTTP method"))
    }

    @Test func maxTimeEndsATricklingBody() async throws {
        let start = ContinuousClock.now
        // httpbin sends the head at once, then one byte per second for ten seconds.
        let outcome = try await Self.courier(["get", "--max-time", "1.5", "--timeout", "30", try Self.url("/drip?duration=10&numbytes=10&delay=0")])
        let elapsed = ContinuousClock.now - start
        #expect(outcome.status == 4)
        #expect(outcome.standardError.contains("--max-time 1.5 s"), "\(outcome.standardError)")
        #expect(elapsed >= .seconds(1.5) && elapsed < .seconds(6), "\(elapsed)")
    }

    /// `download --max-time` stops the download as Ctrl-C does: its bytes are kept, and the message says how to go on.
    @Test func maxTimeStopsADownloadAndKeepsItsBytes() async throws {
        let folder = try Fixtures.temporaryDirectory("max-time")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("drip.bin").path
        let start = ContinuousClock.now
        let outcome = try await Self.courier(["download", "--max-time", "2.5", "-o", output, try Self.url("/drip?duration=10&numbytes=10&delay=0")])
        let elapsed = ContinuousClock.now - start
        #expect(outcome.status == 4, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("longer than --max-time 2.5 s and was stopped after"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("--continue"), "\(outcome.standardError)")
        #expect(elapsed >= .seconds(2.5) && elapsed < .seconds(7), "\(elapsed)")
        let kept = try Data(contentsOf: URL(fileURLWithPath: output + ".part"))
        #expect((1...5).contains(kept.count), "\(kept.count) bytes kept")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func versionIsPrinted() async throws {
        let outcome = try await Self.courier(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.hasPrefix("courier "))
    }
}

/// `--stream` on a terminal: a line-delimited JSON body is formatted line by line as it arrives.
@Suite(
    "courier --stream (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct CLIStreamTests {
    @Test func eachJSONLineIsFormattedOnATerminal() async throws {
        let outcome = try await PseudoTerminal.courier(["get", "--stream", "--pretty", "format", try CLIPipeTests.url("/stream/3")], environment: ["NO_COLOR": "1"])
        #expect(outcome.status == 0, "\(outcome.shown)")
        // httpbin sends three one-line JSON documents; each is printed pretty (an indented "id" line of its own).
        let lines = outcome.shown.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.filter { $0.hasPrefix("\"id\" : ") } == ["\"id\" : 0,", "\"id\" : 1,", "\"id\" : 2,"], "\(outcome.shown)")
    }

    /// A Server-Sent Events stream goes to standard output event by event as the server sends them, not at its end.
    @Test func serverSentEventsArriveAsTheyAreSent() async throws {
        let url = try await Fixtures.url("/events?count=3&interval=1.5").absoluteString
        let started = ContinuousClock.now
        let child = try ChildProcess("courier", ["get", "--stream", url])
        try await child.waitFor("data: {\"n\":1}", timeout: .seconds(20))
        let firstSeen = ContinuousClock.now - started
        let outcome = try await child.finish()
        let total = ContinuousClock.now - started
        #expect(outcome.status == 0, "\(outcome.standardError)")
        // The stream lasts 3 s; the first event was on standard output well before its end.
        #expect(total - firstSeen >= .seconds(2), "first event after \(firstSeen), end after \(total)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("data: ") } == ["data: {\"n\":1}", "data: {\"n\":2}", "data: {\"n\":3}"], "\(lines)")
        #expect(lines.filter { $0 == "event: tick" }.count == 3)
    }

    @Test func inAPipeTheLinesAreTheServersBytes() async throws {
        let streamed = try await CLIPipeTests.courier(["get", "--stream", try CLIPipeTests.url("/stream/3")])
        let lines = streamed.standardOutput.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("{") && !$0.contains("\n") })
    }
}
