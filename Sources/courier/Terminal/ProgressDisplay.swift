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
///   place with bytes, percentage, rate and ETA, at most `redrawInterval` apart (default 0.1 s).
/// - Otherwise (standard output redirected or piped, as in scripts and CI logs) it prints plain
///   lines: one at the first update, then one every `lineInterval` (default 0.5 s), and a final line.
///
/// Updates may come from any thread. Formatting lives in ``ProgressLine``; this type only decides
/// when to write and how (redraw or new line).
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
    }

    private struct State {
        var started: ContinuousClock.Instant?
        var lastWrite: ContinuousClock.Instant?
        var snapshot: TransferSnapshot?
        /// Whether a redrawn line is on screen (and must be cleared before other output).
        var lineOnScreen = false
        var finished = false
    }

    /// How progress is written.
    let style: Style
    private let interval: Duration
    private let baseline: Int64
    private let now: @Sendable () -> ContinuousClock.Instant
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

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
        self.baseline = baseline
        self.interval = style == .redrawn ? redrawInterval : lineInterval
        self.now = now
        self.write = write
    }

    /// Writes `text` to standard error, unbuffered.
    static let standardError: @Sendable (String) -> Void = { text in
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Records progress: `completed` bytes of `total` (`nil` when unknown), with an optional `prefix`
    /// such as "3/5 files". Writes only when the interval has passed since the last write (the first
    /// update always writes). Ignored after ``finish()``.
    func update(completed: Int64, total: Int64?, prefix: String? = nil) {
        let text: String? = state.withLock { state in
            guard !state.finished else { return nil }
            let instant = now()
            let started = state.started ?? instant
            state.started = started
            let snapshot = TransferSnapshot(completed: completed, total: total, baseline: baseline, elapsed: seconds(instant - started), prefix: prefix)
            state.snapshot = snapshot
            if let last = state.lastWrite, instant - last < interval { return nil }
            state.lastWrite = instant
            return render(ProgressLine.running(snapshot), &state)
        }
        if let text { write(text) }
    }

    /// Prints a whole line of other output (a per-file result, a hint) without garbling the progress
    /// line: on a terminal the progress line is cleared first and redrawn after.
    func printLine(_ line: String) {
        let text: String = state.withLock { state in
            guard style == .redrawn, state.lineOnScreen, let snapshot = state.snapshot, !state.finished else { return line + "\n" }
            return Self.clearLine + line + "\n" + ProgressLine.running(snapshot)
        }
        write(text)
    }

    /// Ends the display with the final figures (elapsed time instead of ETA) on their own line.
    /// Later calls and updates do nothing. With no update ever made it writes nothing.
    func finish() {
        let text: String? = state.withLock { state in
            guard !state.finished, var snapshot = state.snapshot, let started = state.started else { return nil }
            state.finished = true
            snapshot.elapsed = seconds(now() - started)
            return render(ProgressLine.finished(snapshot), &state) + (style == .redrawn ? "\n" : "")
        }
        if let text { write(text) }
    }

    /// Ends the display without final figures, e.g. when the transfer was interrupted: the redrawn
    /// line is ended so that later output starts on a fresh line.
    func abandon() {
        let text: String? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            return state.lineOnScreen ? "\n" : nil
        }
        if let text { write(text) }
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

    private func seconds(_ duration: Duration) -> Double {
        let (whole, fraction) = duration.components
        return Double(whole) + Double(fraction) / 1e18
    }
}
