import ArgumentParser

/// The text given to a numeric option, kept as typed until ``NumericOption`` parses and bounds it.
///
/// argument-parser's own parsing of `Int` and `Double` would reject `nan` or `1e19` with its usage screen (not one
/// line), and accept `inf` or `1e308`; the commands check their numeric options with ``NumericOption`` instead, at
/// the start of `run()`, so that every bad value is one usage line naming the option and its range (exit 2).
struct OptionNumber: ExpressibleByArgument, ExpressibleByIntegerLiteral, CustomStringConvertible, Sendable {
    /// The text as typed, e.g. `30`, `1.5`, `-1`, `nan`.
    let text: String

    /// The value given on the command line; never fails (the option's ``NumericOption`` judges it).
    init(argument: String) {
        text = argument
    }

    /// A default written in the source, e.g. `= 30`.
    init(integerLiteral value: Int) {
        text = String(value)
    }

    var description: String { text }
}

/// Every numeric option of `courier`, its bounds, and the one function that parses and bounds its value.
///
/// Seconds (`--timeout`, `--max-time`) are finite numbers from 0.001 to 31,536,000 (a year); counts are whole numbers
/// in the option's range: `--retry` 0…100, `--concurrency` 1…1000, `--max-redirects` 0…1000, `--port` 0…65535. A value
/// outside is a usage error (``CLIFailure/usage(_:)``, exit 2) naming the option and its range, so that nothing
/// downstream needs its own clamping.
struct NumericOption: Sendable {
    /// What the option counts.
    enum Kind: Sendable {
        /// Seconds, from ``NumericOption/shortestSeconds`` to ``NumericOption/longestSeconds``.
        case seconds
        /// A whole number in the range.
        case count(ClosedRange<Int>)
        /// A number of bytes in the range, written as digits with an optional `K` or `M` (KiB, MiB; aria2c's units).
        case bytes(ClosedRange<Int64>)
    }

    /// The option as typed, e.g. `--max-time`.
    let name: String
    let kind: Kind

    /// The fewest seconds any seconds option accepts: 0.001 (a millisecond).
    static let shortestSeconds = 0.001
    /// The most seconds any seconds option accepts: 31,536,000 (a year).
    static let longestSeconds: Double = 365 * 86_400

    /// `--max-time`: seconds the whole request or download may take.
    static let maxTime = NumericOption(name: "--max-time", kind: .seconds)
    /// `--connect-timeout`: seconds allowed for making a connection (curl's option of that name).
    static let connectTimeout = NumericOption(name: "--connect-timeout", kind: .seconds)
    /// `--timeout`: seconds without data before a request or download fails.
    static let timeout = NumericOption(name: "--timeout", kind: .seconds)
    /// `--retry`: 0 to 100 retries.
    static let retry = NumericOption(name: "--retry", kind: .count(0...100))
    /// `batch --concurrency`: 1 to 1000 downloads at once.
    static let concurrency = NumericOption(name: "--concurrency", kind: .count(1...1000))
    /// `--max-redirects`: 0 to 1000 redirects followed.
    static let maxRedirects = NumericOption(name: "--max-redirects", kind: .count(0...1000))
    /// `queue drain --per-host`: 1 to 1000 jobs at once for one host.
    static let perHost = NumericOption(name: "--per-host", kind: .count(1...1000))
    /// `queue drain --attempts`: 1 to 1000 attempts of one job.
    static let attempts = NumericOption(name: "--attempts", kind: .count(1...1000))
    /// `queue drain --lease`: seconds a claimed job stays with its worker unless renewed.
    static let lease = NumericOption(name: "--lease", kind: .seconds)
    /// `queue drain --backoff`: the seconds of the first retry's backoff ceiling (doubled each retry).
    static let backoff = NumericOption(name: "--backoff", kind: .seconds)
    /// `queue drain --poll`: seconds between looks for jobs other processes added.
    static let poll = NumericOption(name: "--poll", kind: .seconds)
    /// `queue add --delay` and `--deadline`: seconds from now.
    static let delay = NumericOption(name: "--delay", kind: .seconds)
    static let deadline = NumericOption(name: "--deadline", kind: .seconds)
    /// `download --split`: 1 to 16 connections (aria2c's most per server).
    static let split = NumericOption(name: "--split", kind: .count(1...16))
    /// `download --min-split-size`: 1 MiB to 1 GiB, as aria2c's `-k`.
    static let minSplitSize = NumericOption(name: "--min-split-size", kind: .bytes(1 << 20 ... 1 << 30))
    /// `serve --port`: 0 (a free port) to 65535.
    static let port = NumericOption(name: "--port", kind: .count(0...65_535))

    /// `seconds` within 0…``longestSeconds`` (NaN as ``longestSeconds``): what a timer may be given, so that even a value
    /// that bypassed the options' checks cannot overflow a `Duration`.
    static func timerSeconds(_ seconds: Double) -> Double {
        seconds.isNaN ? longestSeconds : min(max(seconds, 0), longestSeconds)
    }

    /// What the option accepts, as the usage error says it.
    var accepted: String {
        switch kind {
        case .seconds:
            "a number of seconds from \(Self.shortestSeconds) to \(Int(Self.longestSeconds)) (a year)"
        case .count(let range):
            "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .bytes(let range):
            "a size from \(range.lowerBound >> 20)M to \(range.upperBound >> 20)M (digits with an optional K or M)"
        }
    }

    /// `given` as seconds.
    /// - Throws: ``CLIFailure`` (usage) unless it is a finite number from ``shortestSeconds`` to ``longestSeconds``
    ///   (or the option counts rather than measures time).
    func seconds(_ given: OptionNumber) throws(CLIFailure) -> Double {
        guard case .seconds = kind, let value = Double(given.text), value.isFinite,
              value >= Self.shortestSeconds, value <= Self.longestSeconds else { throw rejection(of: given) }
        return value
    }

    /// `given` as a whole number.
    /// - Throws: ``CLIFailure`` (usage) unless it is a whole number in the option's range (or the option is seconds).
    func count(_ given: OptionNumber) throws(CLIFailure) -> Int {
        guard case .count(let range) = kind, let value = Int(given.text), range.contains(value) else { throw rejection(of: given) }
        return value
    }

    /// `given` as bytes: digits, or digits followed by `K` (× 1,024) or `M` (× 1,048,576), either case.
    /// - Throws: ``CLIFailure`` (usage) unless it is such a size in the option's range (or the option is not a size).
    func bytes(_ given: OptionNumber) throws(CLIFailure) -> Int64 {
        guard case .bytes(let range) = kind else { throw rejection(of: given) }
        var digits = Substring(given.text)
        var unit: Int64 = 1
        switch digits.last {
        case "K", "k": unit = 1 << 10; digits = digits.dropLast()
        case "M", "m": unit = 1 << 20; digits = digits.dropLast()
        default: break
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let count = Int64(digits), case let (value, overflow) = count.multipliedReportingOverflow(by: unit), !overflow,
              range.contains(value) else { throw rejection(of: given) }
        return value
    }

    /// The usage error for `given`: the option, what it accepts and what it got.
    private func rejection(of given: OptionNumber) -> CLIFailure {
        let shown = given.text.count > 40 ? String(given.text.prefix(40)) + "…" : given.text
        return CLIFailure.usage("\(name) must be \(accepted), not \(shown.debugDescription)")
    }
}
