import Foundation
import Synchronization
import Testing
@testable import courier

@Suite("CLI progress formatting and display", .timeLimit(.minutes(1)))
struct ProgressDisplayTests {
    @Test("byte counts use binary units with three significant figures")
    func bytes() {
        #expect(ProgressLine.bytes(0) == "0 B")
        #expect(ProgressLine.bytes(1023) == "1023 B")
        #expect(ProgressLine.bytes(1024) == "1.00 KiB")
        #expect(ProgressLine.bytes(1536) == "1.50 KiB")
        #expect(ProgressLine.bytes(10 * 1024 - 1) == "10.0 KiB")
        #expect(ProgressLine.bytes(123 * 1024 * 1024 + 400 * 1024) == "123 MiB")
        #expect(ProgressLine.bytes(3 * 1024 * 1024 * 1024) == "3.00 GiB")
        #expect(ProgressLine.bytes(-5) == "0 B")
    }

    @Test("fixed-point figures print what the C formatter prints, without it")
    func fixedPointMatchesTheCFormatter() {
        var generator = SystemRandomNumberGenerator()
        // Exact halves (0.25, 2.5), values just off a half that print as one (0.35, 1.005, 0.0625), and random ones.
        let samples = [0, 0.05, 0.049, 0.25, 0.35, 0.45, 2.5, 3.5, 1.005, 0.0625, 0.95, 9.994, 9.995, 9.996, 99.94, 99.95, 123.4,
                       1023.9, -1.25, -0.004, 5e14]
            + (0..<2000).map { _ in Double.random(in: 0..<2000, using: &generator) }
            + (0..<2000).map { _ in Double(Int.random(in: 0..<200_000, using: &generator)) / 2000 }   // many halves
        for value in samples {
            for decimals in 0...3 {
                #expect(ProgressLine.fixed(value, decimals: decimals) == String(format: "%.\(decimals)f", value), "\(value), \(decimals)")
            }
        }
        #expect(ProgressLine.fixed(.infinity, decimals: 1) == String(format: "%.1f", Double.infinity))
        #expect(BatchReport.time(1.26) == "1.3 s")
        #expect(BatchReport.time(-3) == "0.0 s")
    }

    @Test("rates, durations and percentages, with unknown values shown as dashes")
    func figures() {
        #expect(ProgressLine.rate(2048) == "2.00 KiB/s")
        #expect(ProgressLine.rate(nil) == "-- B/s")
        #expect(ProgressLine.rate(.infinity) == "-- B/s")
        #expect(ProgressLine.duration(0) == "0:00")
        #expect(ProgressLine.duration(4.2) == "0:04")
        #expect(ProgressLine.duration(4.2, rounding: .up) == "0:05")
        #expect(ProgressLine.duration(0.001) == "0:00")
        #expect(ProgressLine.duration(61) == "1:01")
        #expect(ProgressLine.duration(3 * 3600 + 62) == "3:01:02")
        #expect(ProgressLine.duration(nil) == "--:--")
        #expect(ProgressLine.duration(100 * 3600) == "--:--")
        #expect(ProgressLine.percentage(completed: 40, total: 100) == "40%")
        #expect(ProgressLine.percentage(completed: 999, total: 1000) == "99%")
        #expect(ProgressLine.percentage(completed: 150, total: 100) == "100%")
        #expect(ProgressLine.percentage(completed: 5, total: nil) == nil)
        #expect(ProgressLine.percentage(completed: 5, total: 0) == nil)
    }

    @Test("running line: rate counts only this run's bytes, ETA from the remaining bytes")
    func runningLine() {
        let mib: Int64 = 1024 * 1024
        // 4 MiB of 10 MiB, 2 MiB of them already on disk, 2 s elapsed: 1 MiB/s, 6 s left.
        let snapshot = TransferSnapshot(completed: 4 * mib, total: 10 * mib, baseline: 2 * mib, elapsed: 2)
        #expect(ProgressLine.running(snapshot) == "4.00 MiB / 10.0 MiB  40%  1.00 MiB/s  ETA 0:06")
        let unknown = TransferSnapshot(completed: 3 * mib, total: nil, elapsed: 1.5, prefix: "2/5 files")
        #expect(ProgressLine.running(unknown) == "2/5 files  3.00 MiB  2.00 MiB/s")
        let start = TransferSnapshot(completed: 0, total: 100, elapsed: 0)
        #expect(ProgressLine.running(start) == "0 B / 100 B  0%  -- B/s  ETA --:--")
        let done = TransferSnapshot(completed: 10 * mib, total: 10 * mib, elapsed: 8)
        #expect(ProgressLine.finished(done) == "10.0 MiB  100%  1.25 MiB/s  in 0:08")
    }

    @Test("the terminal's bar fills in proportion and needs a known total")
    func bar() {
        #expect(ProgressLine.bar(completed: 40, total: 100, width: 10) == "[####------]")
        #expect(ProgressLine.bar(completed: 0, total: 100, width: 4) == "[----]")
        #expect(ProgressLine.bar(completed: 200, total: 100, width: 4) == "[####]")
        #expect(ProgressLine.bar(completed: 5, total: nil, width: 4) == nil)
        let snapshot = TransferSnapshot(completed: 512, total: 1024, elapsed: 1)
        #expect(ProgressLine.running(snapshot, barWidth: 4) == "[##--]  512 B / 1.00 KiB  50%  512 B/s  ETA 0:01")
    }

    @Test("plain lines: the first update at once, then at most one per interval, and a final line")
    func plainLines() {
        let clock = ManualInstant()
        let written = Mutex<[String]>([])
        let display = ProgressDisplay(style: .lines, lineInterval: .milliseconds(500), now: clock.now) { text in written.withLock { $0.append(text) } }
        display.update(completed: 0, total: 1000)
        clock.advance(.milliseconds(200))
        display.update(completed: 200, total: 1000)   // too soon: not written
        clock.advance(.milliseconds(400))
        display.update(completed: 600, total: 1000)
        clock.advance(.milliseconds(400))
        display.finish()
        display.update(completed: 1000, total: 1000)   // after finish: ignored
        let lines = written.withLock { $0 }
        #expect(lines == [
            "0 B / 1000 B  0%  -- B/s  ETA --:--\n",
            "600 B / 1000 B  60%  1000 B/s  ETA 0:01\n",
            "600 B  60%  600 B/s  in 0:01\n",
        ])
    }

    @Test("terminal style redraws one line in place and keeps other output off it")
    func redrawnLine() {
        let clock = ManualInstant()
        let written = Mutex<[String]>([])
        let display = ProgressDisplay(style: .redrawn, redrawInterval: .milliseconds(100), now: clock.now) { text in written.withLock { $0.append(text) } }
        display.update(completed: 10, total: nil)
        clock.advance(.milliseconds(50))
        display.update(completed: 20, total: nil)   // throttled
        clock.advance(.milliseconds(50))
        display.update(completed: 30, total: nil)
        display.printLine("done: a")
        display.abandon()
        let text = written.withLock { $0.joined() }
        let clear = ProgressDisplay.clearLine
        #expect(text == "\(clear)10 B  -- B/s\(clear)30 B  300 B/s\(clear)done: a\n30 B  300 B/s\n")
        #expect(!text.contains("20 B"))
    }

    @Test("finishing without any update writes nothing")
    func silentFinish() {
        let written = Mutex<[String]>([])
        let display = ProgressDisplay(style: .lines, write: { text in written.withLock { $0.append(text) } })
        display.finish()
        display.printLine("hello")
        #expect(written.withLock { $0 } == ["hello\n"])
    }
}

/// A clock the test moves by hand.
private final class ManualInstant: Sendable {
    private let current = Mutex(ContinuousClock.now)
    var now: @Sendable () -> ContinuousClock.Instant { { self.current.withLock { value in value } } }
    func advance(_ duration: Duration) { current.withLock { $0 += duration } }
}
