import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Every numeric option of `courier` against the values that used to trap or slip through (0 where it makes no
/// sense, -1, nan, inf, 1e19, 1e308, 2^64): each is a usage error (exit 2) with one line on standard error naming the
/// option, never a signal; one valid value of each is not a usage error. No network: request commands run
/// `--offline`, downloads go to a closed port of 127.0.0.1. Serialized: about a hundred debug builds of `courier` at once
/// would load a small machine for the timing tests of other suites.
@Suite("courier numeric options", .serialized, .timeLimit(.minutes(3)))
struct CLINumericOptionTests {
    /// One numeric option of one command.
    struct Option: Sendable, CustomStringConvertible {
        let command: String
        let name: String
        /// A value inside the option's range.
        let valid: String
        /// Whether 0 is inside the range (`--retry 0`, `--max-redirects 0`, `--port 0`).
        let acceptsZero: Bool

        var description: String { "\(command) \(name)" }
    }

    /// A run of `courier` with one value for one option.
    struct Case: Sendable, CustomStringConvertible {
        let option: Option
        let value: String

        var description: String { "\(option) \(value)" }
    }

    static let options: [Option] = [
        Option(command: "get", name: "--max-time", valid: "31536000", acceptsZero: false),
        Option(command: "get", name: "--timeout", valid: "0.001", acceptsZero: false),
        Option(command: "get", name: "--retry", valid: "100", acceptsZero: true),
        Option(command: "get", name: "--max-redirects", valid: "0", acceptsZero: true),
        Option(command: "get", name: "--connect-timeout", valid: "0.5", acceptsZero: false),
        Option(command: "post", name: "--timeout", valid: "2.5", acceptsZero: false),
        Option(command: "post", name: "--max-time", valid: "1e3", acceptsZero: false),
        Option(command: "request", name: "--retry", valid: "3", acceptsZero: true),
        Option(command: "download", name: "--max-time", valid: "31536000", acceptsZero: false),
        Option(command: "download", name: "--timeout", valid: "5", acceptsZero: false),
        Option(command: "download", name: "--retry", valid: "0", acceptsZero: true),
        Option(command: "download", name: "--connect-timeout", valid: "5", acceptsZero: false),
        Option(command: "batch", name: "--concurrency", valid: "1000", acceptsZero: false),
        Option(command: "batch", name: "--timeout", valid: "5", acceptsZero: false),
        Option(command: "batch", name: "--retry", valid: "0", acceptsZero: true),
        Option(command: "serve", name: "--port", valid: "0", acceptsZero: true),
    ]

    static let badValues = ["0", "-1", "nan", "inf", "1e19", "1e308", "18446744073709551616"]

    static let badCases: [Case] = options.flatMap { option in
        badValues.filter { $0 != "0" || !option.acceptsZero }.map { Case(option: option, value: $0) }
    }

    /// The folder downloads and batches write to, and the batch file (one URL of a closed port).
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-numeric-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? Data("http://127.0.0.1:9/unreachable\tunreachable.bin\n".utf8).write(to: folder.appendingPathComponent("batch.txt"))
        return folder
    }()

    /// The command line for `value` given to `option`: `--offline` for requests, a closed port for downloads.
    static func arguments(_ option: Option, _ value: String) -> [String] {
        let given = [option.name, value]
        switch option.command {
        case "download":
            return ["download"] + given + ["-o", folder.appendingPathComponent("unreachable.bin").path, "http://127.0.0.1:9/unreachable"]
        case "batch":
            return ["batch"] + given + ["--output-dir", folder.path, folder.appendingPathComponent("batch.txt").path]
        case "serve":
            return ["serve"] + given
        case "request":
            return ["request", "OPTIONS"] + given + ["--offline", "--ignore-stdin", "http://127.0.0.1:9/"]
        default:
            return [option.command] + given + ["--offline", "--ignore-stdin", "http://127.0.0.1:9/"]
        }
    }

    @Test(arguments: badCases)
    func aValueOutOfRangeIsOneUsageLineNamingTheOption(_ run: Case) async throws {
        let outcome = try await ChildProcess.run("courier", Self.arguments(run.option, run.value), timeout: .seconds(30))
        #expect(!outcome.terminatedBySignal, "\(run) was killed by signal \(outcome.status): \(outcome.standardError.prefix(500))")
        #expect(outcome.status == 2, "\(run): exit \(outcome.status), \(outcome.standardError.prefix(500))")
        let lines = outcome.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(run): not one line: \(outcome.standardError.prefix(500))")
        #expect(outcome.standardError.hasPrefix("courier: \(run.option.name) must be "), "\(run): \(outcome.standardError.prefix(500))")
    }

    /// The options whose valid value runs to an end by itself (not `serve`).
    static let validCases = options.filter { $0.command != "serve" }

    @Test(arguments: validCases)
    func aValueInRangeIsNotAUsageError(_ option: Option) async throws {
        let outcome = try await ChildProcess.run("courier", Self.arguments(option, option.valid), timeout: .seconds(30))
        #expect(!outcome.terminatedBySignal, "\(option) \(option.valid) was killed by signal \(outcome.status)")
        #expect(outcome.status != 2, "\(option) \(option.valid): \(outcome.standardError.prefix(500))")
        #expect(!outcome.standardError.contains("must be"), "\(option) \(option.valid): \(outcome.standardError.prefix(500))")
        switch option.command {
        case "download": #expect(outcome.status == 4, "\(outcome.standardError)")
        case "batch": #expect(outcome.status == 6, "\(outcome.standardError)")
        default: #expect(outcome.status == 0, "\(outcome.standardError)")
        }
    }

    /// `serve --port 0` listens (on a port the kernel picks) rather than failing; stopped by SIGKILL.
    @Test func servePortZeroListens() async throws {
        let child = try ChildProcess("courier", ["serve", "--port", "0"])
        try await child.waitFor("listening on http://127.0.0.1:", timeout: .seconds(20))
        child.send(SIGKILL)
        let outcome = try await child.finish(timeout: .seconds(20))
        #expect(!outcome.standardError.contains("must be"), "\(outcome.standardError)")
    }

    /// A negative value is taken as the option's value (not as an unknown option) and named in the message.
    @Test func theMessageNamesTheRange() async throws {
        let outcome = try await ChildProcess.run("courier", ["download", "--max-time", "1e19", "http://127.0.0.1:9/x"])
        #expect(outcome.status == 2)
        #expect(outcome.standardError == "courier: --max-time must be a number of seconds from 0.001 to 31536000 (a year), not \"1e19\"\n")
        let retry = try await ChildProcess.run("courier", ["get", "--offline", "--retry", "-1", "http://127.0.0.1:9/"])
        #expect(retry.standardError == "courier: --retry must be a whole number from 0 to 100, not \"-1\"\n")
    }
}
