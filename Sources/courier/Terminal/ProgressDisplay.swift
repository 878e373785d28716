import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shows the progress of a transfer on standard error, leaving standard output for data (curl's
/// convention).
///
/// - On a terminal (both standard output and standard error are TTYs) it keeps one line redrawn in
///   place with a 20-cell bar, bytes, percentage, rate and ETA, at most `redrawInterval` apart
///   (default 0.1 s).
/// - Otherwise (standard output redirected or piped, as in scripts and CI logs) it prints plain
///   lines: one at the first update, then one every `lineInterval` (default 0.5 s), and a final line.
///
/// Updates may come from any thread; writes happen under the display's lock, in order. Formatting
/// lives in ``ProgressLine``; this type only decides when to write and how (redraw or new line).
final class ProgressDisplay: Sendable {
    /// How progress reaches the stream.
    enum Style: Sendable, Equatable {
        /// One line redrawn in place with a carriage return (a terminal).
        case redrawn
        /// Plain periodic lines (a file, a pipe, a CI log).
        case lines

        /// `.redrawn` when both standard output and standard error are terminals, `.lines` otherwise.
        static var automatic: Style {
            isatty(STDOUT_FILENO) != 0 && isatty(STDERR_FILENO) != 0 ? .redrawn : .lines
        }

        /// Whether standard error is a terminal: a request command writing its body to a file (`get -o`) shows the
        /// redrawn bar there, and nothing in a script or a log (as curl's `-s` would be expected there).
        static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }
    }

    private struct State {
        var started: ContinuousClock.Instant?
        var lastWrite: ContinuousClock.Instant?
        var snapshot: TransferSnapshot?
        /// Whether a redrawn line is on screen (and must be cleared before other output).
        var lineOnScreen = false
        var finished = false
        /// Bytes that were already present when this run started; excluded from the rate.
        var baseline: Int64 = 0
    }

    /// How progress is written.
    let style: Style
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let write: @Sendable (String) -> Void
    private let state: Mutex<State>

    /// A display for one transfer.
    /// - Parameters:
    ///   - style: redrawn line or plain lines; defaults to ``Style/automatic``.
    ///   - baseline: bytes already present before this run (a resumed download), excluded from the
    ///     rate; defaults to 0.
    ///   - redrawInterval: the least time between two redraws on a terminal; defaults to 0.1 s.
    ///   - lineInterval: the time between two plain lines; defaults to 0.5 s.
    ///   - now: the clock; defaults to `ContinuousClock.now` (tests pass their own).
    ///   - write: where the text goes; defaults to standard error.
    init(
        style: Style = .automatic,
        baseline: Int64 = 0,
        redrawInterval: Duration = .milliseconds(100),
        lineInterval: Duration = .milliseconds(500),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        write: @escaping @Sendable (String) -> Void = ProgressDisplay.standardError
    ) {
        self.style = style
        self.interval = style == .redrawn ? redrawInterval : lineInterval
        self.state = Mutex(State(baseline: baseline))
        self.now = now
        self.write = write
    }

    /// Writes `text` to standard error, unbuffered (through ``StandardStreams``).
    static let standardError: @Sendable (String) -> Void = { text in
        StandardStreams.writeError(text)
    }

    /// Writes `text` to standard output, unbuffered (for result lines printed between redraws); a failure to write
    /// ends the process (see ``StandardStreams/writeOutputOrExit(_:)``).
    static let standardOutput: @Sendable (String) -> Void = { text in
        StandardStreams.writeOutputOrExit(text)
    }

    /// Records progress: `completed` bytes of `total` (`nil` when unknown), with an optional `prefix`
    /// such as "3/5 files". Writes only when the interval has passed since the last write (the first
    /// update always writes). Ignored after ``finish(prefix:)``.
    func update(completed: Int64, total: Int64?, prefix: String? = nil) {
        state.withLock { state in
            guard !state.finished else { return }
            let instant = now()
            let started = state.started ?? instant
            state.started = started
            let snapshot = TransferSnapshot(completed: completed, total: total, baseline: state.baseline, elapsed: (instant - started).seconds, prefix: prefix)
            state.snapshot = snapshot
            if let last = state.lastWrite, instant - last < interval { return }
            state.lastWrite = instant
            write(render(running(snapshot), &state))
        }
    }

    /// Changes the bytes that do not count towards the rate, e.g. to 0 when a resumed download had to
    /// start over, or to the offset the server agreed to continue from.
    func rebase(_ baseline: Int64) {
        state.withLock { $0.baseline = baseline }
    }

    /// Prints a whole line of other output (a per-file result, a hint) to `output` (default: the
    /// display's own stream) without garbling the progress line: on a terminal the progress line is
    /// cleared first and redrawn after.
    func printLine(_ line: String, to output: (@Sendable (String) -> Void)? = nil) {
        let output = output ?? write
        state.withLock { state in
            guard style == .redrawn, state.lineOnScreen, let snapshot = state.snapshot, !state.finished else {
                output(line + "\n")
                return
            }
            write(Self.clearLine)
            output(line + "\n")
            write(running(snapshot))
        }
    }

    /// Ends the display with the final figures (elapsed time instead of ETA) on their own line,
    /// with `prefix` when given (otherwise the last update's). Later calls and updates do nothing.
    /// With no update ever made it writes nothing.
    func finish(prefix: String? = nil) {
        state.withLock { state in
            guard !state.finished, var snapshot = state.snapshot, let started = state.started else { return }
            state.finished = true
            snapshot.elapsed = (now() - started).seconds
            if let prefix { snapshot.prefix = prefix }
            write(render(ProgressLine.finished(snapshot), &state) + (style == .redrawn ? "\n" : ""))
        }
    }

    /// Ends the display without final figures, e.g. when the transfer was interrupted: the redrawn
    /// line is ended so that later output starts on a fresh line.
    func abandon() {
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = true
            if state.lineOnScreen { write("\n") }
        }
    }

    /// Width of the bar drawn on a terminal.
    static let barWidth = 20

    private func running(_ snapshot: TransferSnapshot) -> String {
        ProgressLine.running(snapshot, barWidth: style == .redrawn ? Self.barWidth : nil)
    }

    /// The erase sequence for a redrawn line: carriage return, then "erase to end of line" (ANSI EL).
    static let clearLine = "\r\u{1B}[K"

    private func render(_ line: String, _ state: inout State) -> String {
        switch style {
        case .redrawn:
            state.lineOnScreen = true
            return Self.clearLine + line
        case .lines:
            return line + "\n"
        }
    }
}
