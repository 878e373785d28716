#if os(Linux)
import Foundation

/// When each packet crossing a ``PacketRelay`` leaves, one schedule per direction: the userspace stand-in for
/// `tc netem`, which this machine's kernel lacks.
struct PacketSchedule: Sendable {
    enum Rule: Sendable {
        /// Each packet held for a normally distributed time (mean and standard deviation in milliseconds, never
        /// below zero), but never sent before the one ahead of it: a path whose latency wanders, in order. (netem's
        /// jitter also reorders; here reordering is its own rule, so that each test has one cause.)
        case delay(milliseconds: Double, jitter: Double)
        /// That share of packets held for `milliseconds`, the rest sent at once, so that the held ones arrive after
        /// packets sent later (netem's `delay 20ms reorder 75%`).
        case holdBack(percent: Double, milliseconds: Double)
    }

    let rule: Rule
    private var random: SplitMix64
    private var lastDeparture: UInt64 = 0

    init(_ rule: Rule, seed: UInt64) {
        self.rule = rule
        random = SplitMix64(seed: seed)
    }

    /// The departure, in monotonic nanoseconds, of a packet that arrived at `arrival`, after every packet held before
    /// it; `nil` when it leaves at once, ahead of those.
    mutating func departure(arrival: UInt64) -> UInt64? {
        switch rule {
        case .delay(let milliseconds, let jitter):
            let held = max(0, milliseconds + jitter * standardNormal())
            lastDeparture = max(arrival + UInt64(held * 1e6), lastDeparture)
            return lastDeparture
        case .holdBack(let percent, let milliseconds):
            guard Double.random(in: 0..<100, using: &random) < percent else { return nil }
            return arrival + UInt64(milliseconds * 1e6)
        }
    }

    /// One draw of N(0, 1) (Box–Muller).
    private mutating func standardNormal() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let v = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
#endif
