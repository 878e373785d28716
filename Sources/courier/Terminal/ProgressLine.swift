import Foundation

/// One moment of a transfer, as the progress display renders it.
struct TransferSnapshot: Sendable, Equatable {
    /// Bytes received (or sent) so far, counting any bytes that were already on disk before this run.
    var completed: Int64
    /// The expected total, or `nil` when the server did not say.
    var total: Int64?
    /// Bytes that were already present when this run started (a resumed download); they do not count
    /// towards the rate. Defaults to 0.
    var baseline: Int64 = 0
    /// Seconds since this run started.
    var elapsed: Double
    /// Text shown before the figures, e.g. "3/5 files"; `nil` (the default) shows none.
    var prefix: String? = nil
}

/// Pure formatting for progress output: sizes, rates, durations and whole lines. No I/O, so every
/// rule is unit-testable.
enum ProgressLine {
    /// A byte count in binary units with three significant figures: "0 B", "512 B", "1.50 KiB",
    /// "12.3 MiB", "100 MiB", "1.00 GiB".
    static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        guard count >= 1024 else { return "\(max(count, 0)) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return "\(significant(value)) \(units[unit])"
    }

    /// A transfer rate, e.g. "1.20 MiB/s"; "-- B/s" when not measurable (no time has passed yet).
    static func rate(_ bytesPerSecond: Double?) -> String {
        guard let bytesPerSecond, bytesPerSecond.isFinite, bytesPerSecond >= 0 else { return "-- B/s" }
        return bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// A duration as "m:ss", or "h:mm:ss" from an hour; "--:--" when unknown or absurd (over 99 hours).
    /// Fractions round to the nearest second by default; ETAs pass `.up` (never promise too early).
    static func duration(_ seconds: Double?, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds < 99 * 3600 else { return "--:--" }
        let whole = Int(seconds.rounded(rule))
        let (hours, minutes, secs) = (whole / 3600, (whole % 3600) / 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }

    /// The whole-number percentage of `completed` in `total` ("42%"), capped at 100%; `nil` when the
    /// total is unknown or zero.
    static func percentage(completed: Int64, total: Int64?) -> String? {
        guard let total, total > 0 else { return nil }
        let fraction = min(max(Double(completed) / Double(total), 0), 1)
        return "\(Int((fraction * 100).rounded(.down)))%"
    }

    /// Bytes per second transferred in this run, or `nil` before any time has passed.
    static func bytesPerSecond(_ snapshot: TransferSnapshot) -> Double? {
        guard snapshot.elapsed > 0 else { return nil }
        return Double(max(snapshot.completed - snapshot.baseline, 0)) / snapshot.elapsed
    }

    /// Seconds left at the current rate, or `nil` when the total or the rate is unknown.
    static func secondsRemaining(_ snapshot: TransferSnapshot) -> Double? {
        guard let total = snapshot.total, let rate = bytesPerSecond(snapshot), rate > 0 else { return nil }
        return Double(max(total - snapshot.completed, 0)) / rate
    }

    /// A bar of `width` cells filled in proportion, e.g. "[########------------]" for 40% of 20;
    /// `nil` when the total is unknown or zero.
    static func bar(completed: Int64, total: Int64?, width: Int) -> String? {
        guard let total, total > 0, width > 0 else { return nil }
        let fraction = min(max(Double(completed) / Double(total), 0), 1)
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    /// The line shown while a transfer runs:
    /// "[prefix  ][bar  ]4.00 MiB / 10.0 MiB  40%  1.20 MiB/s  ETA 0:05", or without a known total
    /// "[prefix  ]4.00 MiB  1.20 MiB/s". The bar (see ``bar(completed:total:width:)``) is drawn
    /// when `barWidth` is given (default `nil`: no bar) and the total is known.
    static func running(_ snapshot: TransferSnapshot, barWidth: Int? = nil) -> String {
        var parts: [String] = []
        if let prefix = snapshot.prefix { parts.append(prefix) }
        if let barWidth, let bar = bar(completed: snapshot.completed, total: snapshot.total, width: barWidth) { parts.append(bar) }
        if let total = snapshot.total, let percent = percentage(completed: snapshot.completed, total: total) {
            parts.append("\(bytes(snapshot.completed)) / \(bytes(total))")
            parts.append(percent)
            parts.append(rate(bytesPerSecond(snapshot)))
            parts.append("ETA \(duration(secondsRemaining(snapshot), rounding: .up))")
        } else {
            parts.append(bytes(snapshot.completed))
            parts.append(rate(bytesPerSecond(snapshot)))
        }
        return parts.joined(separator: "  ")
    }

    /// The last line of a transfer: "[prefix  ]10.0 MiB  100%  1.20 MiB/s  in 0:08" (no percentage
    /// when the total is unknown).
    static func finished(_ snapshot: TransferSnapshot) -> String {
        var parts: [String] = []
        if let prefix = snapshot.prefix { parts.append(prefix) }
        parts.append(bytes(snapshot.completed))
        if let percent = percentage(completed: snapshot.completed, total: snapshot.total) { parts.append(percent) }
        parts.append(rate(bytesPerSecond(snapshot)))
        parts.append("in \(duration(snapshot.elapsed))")
        return parts.joined(separator: "  ")
    }

    /// Three significant figures: 1.50, 12.3, 100 (1023.9 stays "1024" rather than switching unit).
    private static func significant(_ value: Double) -> String {
        if value < 9.995 { return fixed(value, decimals: 2) }
        if value < 99.95 { return fixed(value, decimals: 1) }
        return fixed(value, decimals: 0)
    }

    /// `value` with `decimals` digits after the point (at most 3): what `String(format: "%.Nf")` prints,
    /// without its trip through the C formatter and `NSString`, which cost a batch of 1,000 small files
    /// about 2 % of its CPU (three figures per result line). Rounded as C rounds, from the exact binary
    /// value: the product with the scale is rounded once, so its exact rounding error (a fused
    /// multiply-add) settles which side of a half it was on, and an exact half goes to the even digit.
    /// Non-finite and very large values go to the C formatter.
    static func fixed(_ value: Double, decimals: Int) -> String {
        let decimals = min(max(decimals, 0), 3)
        let scale = [1.0, 10, 100, 1000][decimals]
        let product = abs(value) * scale
        guard product.isFinite, product < 1e15 else { return String(format: "%.\(decimals)f", value) }
        let error = (-product).addingProduct(abs(value), scale)   // exact: abs(value) * scale == product + error
        let down = product.rounded(.down)
        let fraction = product - down
        let roundsUp = fraction > 0.5 || (fraction == 0.5 && (error > 0 || (error == 0 && down.truncatingRemainder(dividingBy: 2) == 1)))
        let units = Int64(down) + (roundsUp ? 1 : 0)
        let whole = units / Int64(scale), decimalPart = units % Int64(scale)
        var text = value.sign == .minus ? "-" : ""
        text += String(whole)
        guard decimals > 0 else { return text }
        let digits = String(decimalPart)
        return text + "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
}
