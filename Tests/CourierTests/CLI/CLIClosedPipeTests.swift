import Foundation
import Testing

/// `courier` writing into a pipe whose reader leaves (`| head -c 10`) ends at once and quietly with status 141
/// (128 + SIGPIPE, as coreutils do), whatever it was printing: a raw body, a pretty-printed JSON body, a stream, a
/// stream of JSON lines, the progress of a download on standard error. A full standard output or `-o` file (`/dev/full`)
/// is one line and exit 4. Run through bash against the in-process test server.
@Suite("courier into a closed pipe", .timeLimit(.minutes(3)))
struct CLIClosedPipeTests {
    /// `text` quoted for bash.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Runs `courier arguments < input | head -c bytes` (standard error to a file, or into the pipe too when
    /// `standardErrorIntoPipe`) and returns courier's own exit status and what it wrote on standard error.
    static func courierIntoHead(
        _ arguments: [String], input: URL? = nil, bytes: Int = 10, standardErrorIntoPipe: Bool = false
    ) async throws -> (status: Int32, standardError: String) {
        let courier = try ChildProcess.executable("courier").path
        let errors = Fixtures.temporaryFile("closed-pipe-\(UUID().uuidString).err")
        defer { try? FileManager.default.removeItem(at: errors) }
        let command = ([courier] + arguments).map(quoted).joined(separator: " ")
            + (input.map { " < " + quoted($0.path) } ?? " < /dev/null")
            + (standardErrorIntoPipe ? " 2>&1" : " 2> " + quoted(errors.path))
            + " | head -c \(bytes) > /dev/null; echo \"${PIPESTATUS[0]}\""
        let outcome = try await ShellCommand.run(command, timeout: .seconds(60))
        let printed = String(decoding: outcome.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let status = try #require(Int32(printed), "bash printed \(printed.debugDescription); stderr: \(outcome.standardError)")
        let standardError = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        return (status, standardError)
    }

    static func url(_ path: String) async throws -> String {
        try await Fixtures.url(path).absoluteString
    }

    /// A file of `count` JSON objects: one array, or one object a line (`lines`), about 60 bytes each.
    static func jsonFile(count: Int, lines: Bool) throws -> URL {
        let objects = (0..<count).map { #"{"id":\#($0),"name":"item \#($0)","tags":["a","b"],"ok":true}"# }
        let text = lines ? objects.joined(separator: "\n") + "\n" : "[" + objects.joined(separator: ",") + "]"
        let file = Fixtures.temporaryFile("closed-pipe-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func aRawBodyOfTwoMegabytes() async throws {
        let (status, errors) = try await Self.courierIntoHead(["get", try await Self.url("/range/2000000")])
        #expect(status == 141, "\(errors)")
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func aPrettyPrintedJSONBody() async throws {
        let body = try Self.jsonFile(count: 30_000, lines: false)
        defer { try? FileManager.default.removeItem(at: body) }
        let (status, errors) = try await Self.courierIntoHead(["post", "--pretty", "format", try await Self.url("/echo")], input: body)
        #expect(status == 141, "\(errors)")
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func aStreamedBody() async throws {
        let (status, errors) = try await Self.courierIntoHead(["get", "--stream", try await Self.url("/range/2000000")])
        #expect(status == 141, "\(errors)")
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func aStreamOfJSONLinesFormattedOneByOne() async throws {
        let body = try Self.jsonFile(count: 30_000, lines: true)
        defer { try? FileManager.default.removeItem(at: body) }
        let (status, errors) = try await Self.courierIntoHead(
            ["post", "--stream", "--pretty", "format", "--content-type", "application/x-ndjson", try await Self.url("/echo")], input: body
        )
        #expect(status == 141, "\(errors)")
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func theHeadsAndBodyOfVerbose() async throws {
        let (status, errors) = try await Self.courierIntoHead(["get", "--print", "Hhb", try await Self.url("/range/2000000")])
        #expect(status == 141, "\(errors)")
        #expect(errors.isEmpty, "\(errors)")
    }

    /// A download's progress goes to standard error: when that pipe's reader leaves, the download ends quietly too.
    @Test func aDownloadWhoseProgressReaderLeft() async throws {
        let folder = try Fixtures.temporaryDirectory("closed-pipe")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, _) = try await Self.courierIntoHead(
            ["download", "-o", folder.appendingPathComponent("drip.bin").path, try await Self.url("/drip?duration=4&numbytes=8")],
            bytes: 1, standardErrorIntoPipe: true
        )
        #expect(status == 141)
    }

    /// Standard output on a full disk (`/dev/full`: every write fails with ENOSPC) is one line and exit 4.
    @Test func aFullStandardOutputIsOneLineAndExit4() async throws {
        let outcome = try await ShellCommand.run(
            Self.quoted(try ChildProcess.executable("courier").path) + " get " + Self.quoted(try await Self.url("/range/100000")) + " > /dev/full"
        )
        #expect(outcome.status == 4, "\(outcome.standardError)")
        #expect(outcome.standardError == "courier: cannot write to standard output: No space left on device\n", "\(outcome.standardError)")
    }

    /// `-o` to a file that cannot take the bytes (`/dev/full`) fails with a message that says so, and exit 4.
    @Test func aFullOutputFileIsOneLineAndExit4() async throws {
        let outcome = try await ChildProcess.run("courier", ["get", "-o", "/dev/full", try await Self.url("/range/100000")])
        #expect(!outcome.terminatedBySignal, "killed by signal \(outcome.status): \(outcome.standardError.prefix(2000))")
        #expect(outcome.status == 4, "\(outcome.standardError.prefix(2000))")
        // Said as `download` says it (the requests, downloads and batches describe a failure the same way).
        #expect(outcome.standardError == "courier: no space left on device\n", "\(outcome.standardError.prefix(2000))")
    }
}
