#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// Coalesces bursts of kernel events: an evaluation is due once events have been quiet for
/// `quietPeriod`, or `maximumDelay` after the first pending event at the latest. Times are
/// milliseconds on any monotonic clock. Pure; no I/O.
struct EventDebouncer: Sendable, Equatable {
    /// Default 30 ms.
    var quietPeriod: UInt64 = 30
    /// Default 200 ms.
    var maximumDelay: UInt64 = 200
    private(set) var firstPending: UInt64?
    private(set) var lastEvent: UInt64?

    init(quietPeriod: UInt64 = 30, maximumDelay: UInt64 = 200) {
        self.quietPeriod = quietPeriod
        self.maximumDelay = maximumDelay
    }

    mutating func record(at now: UInt64) {
        if firstPending == nil { firstPending = now }
        lastEvent = now
    }

    /// When the pending evaluation is due, or nil if nothing is pending.
    var dueTime: UInt64? {
        guard let firstPending, let lastEvent else { return nil }
        return min(lastEvent + quietPeriod, firstPending + maximumDelay)
    }

    /// The `poll(2)` timeout until the due time: `-1` (wait for ever) when nothing is pending.
    func pollTimeout(at now: UInt64) -> Int32 {
        guard let dueTime else { return -1 }
        return dueTime <= now ? 0 : Int32(clamping: dueTime - now)
    }

    /// `true` (and clears the pending state) when an evaluation is due at `now`.
    mutating func takeDue(at now: UInt64) -> Bool {
        guard let dueTime, dueTime <= now else { return false }
        firstPending = nil
        lastEvent = nil
        return true
    }
}
#endif
