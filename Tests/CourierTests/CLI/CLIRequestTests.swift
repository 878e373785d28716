@testable import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `courier` request commands, run as a child process against the in-process test server: stdout, stderr and
/// exit codes for redirects, timeouts, authentication, headers, bodies, uploads, output files and `--verbose`.
@Suite("courier request commands", .timeLimit(.minutes(3)))
struct CLIRequestTests {
    /// Runs `courier` with `arguments` and returns what it printed and its exit code.
    static func courier(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> ChildProcess.Outcome {
        let outcome = try await ChildProcess.run("courier", arguments, timeout: timeout)
        #expect(!outcome.terminatedBySignal, "courier \(arguments.joined(separator: " ")) was killed by signal \(outcome.status)")
        return outcome
    }

    /// The JSON object after the status line (and headers) on standard output.
    static func json(_ outcome: ChildProcess.Outcome) throws -> [String: Any] {
        let text = outcome.standardOutput
        let start = try #require(text.firstIndex(of: "{"), "no JSON in: \(text)")
        let object = try JSONSerialization.jsonObject(with: Data(text[start...].utf8))
        return try #require(object as? [String: Any])
    }

    static func url(_ path: String) async throws -> String {
        try await Fixtures.url(path).absoluteString
    }

    @Test func followsRedirectsByDefaultAndNotWithNoFollow() async throws {
        let followed = try await Self.courier(["get", "-p", "hb", try await Self.url("/redirect/3")])
        #expect(followed.status == 0, "\(followed.standardError)")
        #expect(followed.standardOutput.hasPrefix("HTTP/1.1 200 "))
        #expect((try Self.json(followed)["url"] as? String)?.hasSuffix("/get") == true)

        let stopped = try await Self.courier(["get", "-p", "h", "--no-follow", try await Self.url("/redirect/3")])
        #expect(stopped.status == 0, "\(stopped.standardError)")
        #expect(stopped.standardOutput.hasPrefix("HTTP/1.1 302 "))

        let stoppedVerbose = try await Self.courier(["get", "--no-follow", "-v", try await Self.url("/redirect/3")])
        #expect(stoppedVerbose.standardOutput.contains("Location: /relative-redirect/2"))
    }

    @Test func tooManyRedirectsIsANetworkFailure() async throws {
        let outcome = try await Self.courier(["get", "--max-redirects", "2", try await Self.url("/redirect/3")])
        #expect(outcome.status == 4)
        #expect(outcome.standardError.contains("Stopped after 2 redirects"), "\(outcome.standardError)")
        #expect(outcome.standardOutput.isEmpty)

        let enough = try await Self.courier(["get", "--max-redirects", "3", try await Self.url("/redirect/3")])
        #expect(enough.status == 0, "\(enough.standardError)")
    }

    @Test func anIdleServerTimesOut() async throws {
        let start = ContinuousClock.now
        let outcome = try await Self.courier(["get", "--timeout", "0.5", try await Self.url("/slow-body/100?delay=20")])
        let elapsed = ContinuousClock.now - start
        #expect(outcome.status == 4)
        #expect(outcome.standardError.lowercased().contains("timed out"), "\(outcome.standardError)")
        #expect(elapsed < .seconds(10), "the timeout fired after \(elapsed)")

        let patient = try await Self.courier(["get", "--timeout", "5", try await Self.url("/delay/0.3")])
        #expect(patient.status == 0, "\(patient.standardError)")
    }

    /// `--connect-timeout` bounds making the connection alone, as curl's does: a listener whose accept queue is full
    /// drops every new SYN (Linux), so the connection never completes; the request fails after about a second although
    /// `--timeout` would allow 60. `--compressed` (curl's) is accepted.
    @Test func connectTimeoutBoundsTheConnection() async throws {
        let listener = try FullListener()
        defer { listener.close() }
        let start = ContinuousClock.now
        let outcome = try await Self.courier(["get", "--compressed", "--timeout", "60", "--connect-timeout", "1", "http://127.0.0.1:\(listener.port)/"])
        let elapsed = ContinuousClock.now - start
        #expect(outcome.status == 4, "\(outcome.standardError)")
        #expect(outcome.standardError.lowercased().contains("timed out") || outcome.standardError.contains("connect"), "\(outcome.standardError)")
        #expect(elapsed >= .seconds(1) && elapsed < .seconds(20), "failed after \(elapsed)")
    }

    /// `--resolve HOST:PORT:ADDR` (curl's): the connection goes to ADDR, the request still names HOST.
    @Test func resolveConnectsToTheGivenAddressAndKeepsTheHost() async throws {
        let base = try #require(URL(string: try await Self.url("/headers")))
        let port = try #require(base.port)
        let named = "http://courier-resolve.test:\(port)/headers"
        let outcome = try await Self.courier(["get", "-p", "b", "--resolve", "Courier-Resolve.test:\(port):127.0.0.1", named])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let headers = try #require(try Self.json(outcome)["headers"] as? [String: Any])
        #expect(headers["Host"] as? String == "courier-resolve.test:\(port)", "\(headers)")

        // Without it the name does not resolve (.test is reserved), and a malformed entry is a usage error.
        let unresolved = try await Self.courier(["get", "--timeout", "10", named])
        #expect(unresolved.status == 4, "\(unresolved.standardError)")
        for bad in ["courier-resolve.test:127.0.0.1", "courier-resolve.test:0:127.0.0.1", "courier-resolve.test:\(port):"] {
            let usage = try await Self.courier(["get", "--resolve", bad, named])
            #expect(usage.status == 2 && usage.standardError.contains("--resolve"), "\(bad): \(usage.standardError)")
        }
    }

    /// `--connect-to HOST1:PORT1:HOST2:PORT2` (#36, item 8): the connection goes to HOST2 (through `--resolve` when it
    /// is listed there) on PORT2, the request keeps HOST1:PORT1.
    @Test func connectToSendsTheConnectionElsewhereAndKeepsTheHost() async throws {
        let base = try #require(URL(string: try await Self.url("/headers")))
        let port = try #require(base.port)
        let named = "http://courier-connect.test:\(port)/headers"
        for mapping in [["--connect-to", "courier-connect.test:\(port):127.0.0.1:"],
                        ["--connect-to", "courier-connect.test::backend.test:", "--resolve", "backend.test:\(port):127.0.0.1"]] {
            let outcome = try await Self.courier(["get", "-p", "b"] + mapping + [named])
            #expect(outcome.status == 0, "\(mapping): \(outcome.standardError)")
            let headers = try #require(try Self.json(outcome)["headers"] as? [String: Any])
            #expect(headers["Host"] as? String == "courier-connect.test:\(port)", "\(headers)")
        }
        // Another port: the URL names port 1, where nothing listens; the entry for that port (not the one for port 2)
        // sends the connection to httpbin's, and Host keeps port 1.
        let elsewhere = "http://courier-connect.test:1/headers"
        let moved = try await Self.courier([
            "get", "-p", "b", "--connect-to", "courier-connect.test:2:127.0.0.1:9", "--connect-to",
            "Courier-Connect.test:1:127.0.0.1:\(port)", elsewhere,
        ])
        #expect(moved.status == 0, "\(moved.standardError)")
        let headers = try #require(try Self.json(moved)["headers"] as? [String: Any])
        #expect(headers["Host"] as? String == "courier-connect.test:1", "\(headers)")
        for bad in ["courier-connect.test:\(port):127.0.0.1:0", ":\(port):127.0.0.1:", "courier-connect.test:\(port)", "a:b:c:d"] {
            let usage = try await Self.courier(["get", "--connect-to", bad, named])
            #expect(usage.status == 2 && usage.standardError.contains("--connect-to"), "\(bad): \(usage.standardError)")
        }
    }

    @Test(arguments: ["/basic-auth/ann/pa:ss", "/digest-auth/auth/ann/pa:ss", "/digest-auth/auth/ann/pa:ss/SHA-256"])
    func theCredentialAnswersTheServersChallenge(path: String) async throws {
        let accepted = try await Self.courier(["get", "--check-status", "-u", "ann:pa:ss", try await Self.url(path)])
        #expect(accepted.status == 0, "\(accepted.standardError)")
        #expect(try Self.json(accepted)["authenticated"] as? Bool == true)

        let refused = try await Self.courier(["get", "-p", "hb", "--check-status", "-u", "ann:wrong", try await Self.url(path)])
        #expect(refused.status == 3)
        #expect(refused.standardOutput.hasPrefix("HTTP/1.1 401 "))
        #expect(refused.standardError.contains("HTTP 401 from"), "\(refused.standardError)")

        let unchecked = try await Self.courier(["get", "-u", "ann:wrong", try await Self.url(path)])
        #expect(unchecked.status == 0, "without --check-status a 401 is a result")
    }

    @Test func bearerTokenAndHeaderOptions() async throws {
        let bearer = try await Self.courier(["get", "--bearer", "tok-123", try await Self.url("/bearer")])
        #expect(bearer.status == 0, "\(bearer.standardError)")
        #expect(try Self.json(bearer)["token"] as? String == "tok-123")

        let headers = try await Self.courier([
            "get", "-H", "X-Trace: abc 1", "-H", "X-Other:   spaced   ", "-H", "User-Agent:", try await Self.url("/headers"),
        ])
        #expect(headers.status == 0, "\(headers.standardError)")
        let echoed = try #require(try Self.json(headers)["headers"] as? [String: Any])
        #expect(echoed["X-Trace"] as? String == "abc 1")
        #expect(echoed["X-Other"] as? String == "spaced")
        #expect(echoed["User-Agent"] == nil, "'User-Agent:' removes the default header")

        for bad in ["no colon here", "Bad Name: x", ": empty"] {
            let outcome = try await Self.courier(["get", "-H", bad, try await Self.url("/headers")])
            #expect(outcome.status == 2)
            #expect(outcome.standardError.hasPrefix("courier: bad header"), "\(outcome.standardError)")
            #expect(outcome.standardError.split(separator: "\n").count == 1)
        }
    }

    @Test func jsonFormAndMultipartBodiesAreEchoed() async throws {
        let json = try await Self.courier(["post", try await Self.url("/post"), "name=Courier", "count:=3", "tags:=[\"a\",\"b\"]"])
        #expect(json.status == 0, "\(json.standardError)")
        let sent = try #require(try Self.json(json)["json"] as? [String: Any])
        #expect(sent["name"] as? String == "Courier")
        #expect(sent["count"] as? Int == 3)
        #expect(sent["tags"] as? [String] == ["a", "b"])

        let form = try await Self.courier(["put", "--form", try await Self.url("/put"), "name=Courier Ltd", "q==1"])
        #expect(form.status == 0, "\(form.standardError)")
        let echo = try Self.json(form)
        #expect((echo["form"] as? [String: Any])?["name"] as? String == "Courier Ltd")
        #expect((echo["args"] as? [String: Any])?["q"] as? String == "1")
        #expect(((echo["headers"] as? [String: Any])?["Content-Type"] as? String)?.hasPrefix("application/x-www-form-urlencoded") == true)

        let multipart = try await Self.courier(["patch", "--multipart", try await Self.url("/patch"), "name=Courier", "n:=5"])
        #expect(multipart.status == 0, "\(multipart.standardError)")
        let fields = try #require(try Self.json(multipart)["form"] as? [String: Any])
        #expect(fields["name"] as? String == "Courier")
        #expect(fields["n"] as? String == "5")
    }

    @Test func aFileUploadShowsProgressLinesWhenNotATerminal() async throws {
        let file = Fixtures.temporaryFile("cli-upload-\(UUID().uuidString).bin")
        let content = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let outcome = try await Self.courier(["post", try await Self.url("/post"), "note=hello", "photo@\(file.path)"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let echo = try Self.json(outcome)
        let photo = try #require((echo["files"] as? [String: Any])?["photo"] as? [String: Any])
        #expect(photo["sha256"] as? String == content.sha256Hex)
        #expect(photo["size"] as? Int == content.count)
        #expect((echo["form"] as? [String: Any])?["note"] as? String == "hello")

        let progress = outcome.standardError.split(separator: "\n").filter { $0.hasPrefix("upload") }
        #expect(!progress.isEmpty, "no upload progress lines on stderr: \(outcome.standardError)")
        #expect(progress.last?.contains("100%") == true, "\(progress)")
        #expect(!outcome.standardError.contains("\r"), "plain lines, not a redrawn line, when stderr is not a terminal")

        let missing = try await Self.courier(["post", try await Self.url("/post"), "photo@/nonexistent/file.bin"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("/nonexistent/file.bin"), "\(missing.standardError)")
    }

    @Test func outputWritesTheBodyToAFile() async throws {
        let file = Fixtures.temporaryFile("cli-output-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let path = "/bytes/6000000?seed=11"
        let expected = try #require(try await Fixtures.exchange(path).data).sha256Hex

        let outcome = try await Self.courier(["get", "--output", file.path, try await Self.url(path)])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try sha256Hex(ofFile: file) == expected)
        #expect(outcome.standardOutput.isEmpty, "in a pipe only the body goes to stdout, and it went to the file")
        #expect(outcome.standardError.contains("wrote 6000000 bytes to \(file.path)"))

        let nowhere = try await Self.courier(["get", "-o", "/nonexistent-dir/out.bin", try await Self.url("/get")])
        #expect(nowhere.status == 2)
        #expect(nowhere.standardError == "courier: cannot write /nonexistent-dir/out.bin: the directory /nonexistent-dir does not exist\n")
    }

    /// A 256 MiB body goes to the file without being held in memory: the child's peak resident size (VmHWM, polled
    /// from /proc while it runs) stays within 64 MiB of its peak for a small body (one that arrives after 0.3 s,
    /// so that the process lives long enough to be sampled).
    @Test func outputIsStreamedNotBuffered() async throws {
        let file = Fixtures.temporaryFile("cli-stream-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let executable = try ChildProcess.executable("courier").path
        func peakKiB(_ path: String) async throws -> Int {
            let script = """
                \(ShellQuoting.quote(executable)) get -o \(ShellQuoting.quote(file.path)) \(try await Self.url(path)) >/dev/null 2>&1 &
                pid=$!; peak=0
                while kill -0 $pid 2>/dev/null; do
                  v=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null); [ -n "$v" ] && peak=$v; sleep 0.02
                done
                wait $pid; echo "$? $peak"
                """
            let outcome = try await ShellCommand.run(script)
            let fields = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
            #expect(fields.first == 0, "courier failed: \(outcome.standardError)")
            return fields.count == 2 ? fields[1] : -1
        }
        let small = try await peakKiB("/delay/0.3")
        let large = try await peakKiB("/bytes/\(256 << 20)")
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int == 256 << 20)
        #expect(small > 0 && large > 0)
        #expect(large - small < 64 << 10, "peak RSS \(large) KiB for 256 MiB vs \(small) KiB for 1 KiB")
    }

    @Test func verboseShowsHeadsHopsAndTimings() async throws {
        let outcome = try await Self.courier(["get", "-v", try await Self.url("/redirect/2?x=1"), "X-Trace:v1"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let trace = outcome.standardError
        #expect(trace.contains("> GET /redirect/2?x=1 HTTP/1.1\n"))
        #expect(trace.contains("> X-Trace: v1\n"))
        // The fields Courier adds are shown as sent.
        #expect(trace.contains("> Accept-Encoding: gzip, deflate\n"), "\(trace)")
        #expect(trace.contains("> User-Agent: courier/"), "\(trace)")
        #expect(trace.contains("< HTTP/1.1 302 Found\n"))
        #expect(trace.contains("< Location: /relative-redirect/1\n"))
        #expect(trace.contains("* redirect 1: 302 to http://127.0.0.1:"))
        #expect(trace.contains("* redirect 2: 302 to http://127.0.0.1:"))
        #expect(trace.contains("> GET /get HTTP/1.1\n"))
        #expect(trace.contains("< HTTP/1.1 200 OK\n"))
        for hop in 1...3 {
            #expect(trace.contains("* timing \(hop): head after "), "\(trace)")
        }
        #expect(trace.contains("* total ") && trace.contains(" for 3 requests"))
        #expect(outcome.standardOutput.contains("Content-Type: application/json"), "response headers on stdout with -v")

        let digest = try await Self.courier(["get", "-v", "-u", "ann:pw", try await Self.url("/digest-auth/auth/ann/pw")])
        #expect(digest.standardError.contains("* answering the Digest challenge with the -u credential"), "\(digest.standardError)")
    }

    @Test func printCurlPrintsACommandThatSendsTheSameRequest() async throws {
        let file = Fixtures.temporaryFile("cli-curl-\(UUID().uuidString) it's.txt")
        try Data("a file for curl\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let commands: [[String]] = [
            ["post", try await Self.url("/anything/json"), "name=O'Brien $HOME", "count:=3", "q==a b", "X-Trace:it's"],
            ["put", "--form", try await Self.url("/anything/form"), "name=Courier & Co", "-H", "X-Other: 1"],
            ["post", try await Self.url("/anything/upload"), "note=at@literal", "doc@\(file.path)"],
            ["get", "-u", "ann:s3:cret", try await Self.url("/digest-auth/auth/ann/s3:cret")],
            ["get", "--bearer", "tok en", try await Self.url("/bearer")],
            ["get", try await Self.url("/redirect/2")],
        ]
        for arguments in commands {
            let printed = try await Self.courier(arguments + ["--print-curl"])
            #expect(printed.status == 0, "\(arguments): \(printed.standardError)")
            let command = printed.standardOutput.trimmingCharacters(in: .newlines)
            #expect(command.hasPrefix("curl "), "\(command)")
            #expect(!command.contains("\n"), "one line: \(command)")
            guard ShellCommand.curlAvailable else { continue }

            let sent = try await Self.courier(arguments)
            #expect(sent.status == 0, "\(arguments): \(sent.standardError)")
            let curl = try await ShellCommand.run(command + " -s")
            #expect(curl.status == 0, "\(command): \(curl.standardError)")
            let fromCourier = try Self.json(sent)
            let fromCurl = try #require(try JSONSerialization.jsonObject(with: curl.standardOutput) as? [String: Any], "\(command)")
            for key in ["args", "form", "files", "json", "method", "url", "authenticated", "token"] {
                let left = try JSONSerialization.data(withJSONObject: ["v": fromCourier[key] ?? NSNull()], options: .sortedKeys)
                let right = try JSONSerialization.data(withJSONObject: ["v": fromCurl[key] ?? NSNull()], options: .sortedKeys)
                #expect(left == right, "\(arguments) \(key): courier \(String(decoding: left, as: UTF8.self)) vs curl \(String(decoding: right, as: UTF8.self))")
            }
            let courierHeaders = fromCourier["headers"] as? [String: Any] ?? [:]
            let curlHeaders = fromCurl["headers"] as? [String: Any] ?? [:]
            for name in ["X-Trace", "X-Other", "User-Agent"] {
                #expect("\(courierHeaders[name] ?? "none")" == "\(curlHeaders[name] ?? "none")", "\(arguments) header \(name)")
            }
        }

        let output = try await Self.courier(["get", "-o", "/tmp/out file", "--insecure", try await Self.url("/get"), "--print-curl"])
        #expect(output.standardOutput.contains(" -o '/tmp/out file' -k "), "\(output.standardOutput)")
    }

    /// HTTPie's URL shorthand: `:PORT/path` is localhost, a URL without a scheme takes `http://`; for requests and
    /// downloads alike.
    @Test func httpieShorthandURLs() async throws {
        let local = try await Self.courier(["get", "--offline", "--ignore-stdin", ":8080/get"])
        #expect(local.status == 0 && local.standardOutput.hasPrefix("GET /get HTTP/1.1\nHost: localhost:8080\n"), "\(local.standardOutput)")
        let bare = try await Self.courier(["get", "--offline", "--ignore-stdin", ":/p"])
        #expect(bare.standardOutput.hasPrefix("GET /p HTTP/1.1\nHost: localhost\n"), "\(bare.standardOutput)")
        let schemeless = try await Self.courier(["get", "--offline", "--ignore-stdin", "example.org/x", "a==1"])
        #expect(schemeless.standardOutput.hasPrefix("GET /x?a=1 HTTP/1.1\nHost: example.org\n"), "\(schemeless.standardOutput)")

        let server = try await Fixtures.url("/get")
        let port = try #require(server.port)
        let live = try await Self.courier(["get", "--ignore-stdin", "127.0.0.1:\(port)/get"])
        #expect(live.status == 0, "\(live.standardError)")
        #expect(live.standardOutput.contains("\"url\" : \"http://127.0.0.1:\(port)/get\""), "\(live.standardOutput)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-shorthand-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let download = try await Self.courier(["download", "127.0.0.1:\(port)/bytes/100?seed=3", "-o", folder.appendingPathComponent("b").path])
        #expect(download.status == 0, "\(download.standardError)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("b")) == TestPayload.bytes(count: 100, seed: 3))
    }

    @Test func badInputIsAUsageErrorWithOneLine() async throws {
        let cases: [([String], String)] = [
            (["get", "ftp://example.com/x"], "is not an http or https URL"),
            (["get", "not a url"], "is not an http or https URL"),
            (["get", "-u", ":nouser", try await Self.url("/get")], "bad -u value"),
            (["get", "--max-redirects=-1", try await Self.url("/get")], "--max-redirects must be a whole number from 0 to 1000"),
            (["get", "--timeout", "0", try await Self.url("/get")], "--timeout must be a number of seconds from 0.001"),
            (["get", "--key", "/tmp/key.pem", try await Self.url("/get")], "--key needs --cert"),
            (["get", "--cacert", "/nonexistent/ca.pem", "https://127.0.0.1:1/"], "bad --cacert file"),
        ]
        for (arguments, message) in cases {
            let outcome = try await Self.courier(arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.contains(message), "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.split(separator: "\n").count == 1, "\(arguments): \(outcome.standardError)")
        }
    }

    @Test func aRefusedConnectionIsANetworkFailure() async throws {
        let outcome = try await Self.courier(["get", "http://127.0.0.1:1/get"])
        #expect(outcome.status == 4)
        #expect(outcome.standardError.hasPrefix("courier: "))
    }
}

/// A TCP listener on 127.0.0.1 that never accepts, its accept queue filled: Linux then drops every further SYN, so a
/// connection to it neither completes nor is refused.
final class FullListener {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 0) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        // A backlog of 0 holds one finished connection: two fill it (the second waits half-open).
        for _ in 0..<2 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { throw POSIXError(.EMFILE) }
            descriptors.append(client)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    func close() {
        for descriptor in descriptors { _ = Glibc.close(descriptor) }
        descriptors = []
    }
}
