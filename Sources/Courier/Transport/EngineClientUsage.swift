import NIOCore
import Synchronization

/// Whether an engine client (one AsyncHTTPClient connection pool) carries requests, and since when it has not: what
/// ``EngineClientPool`` reads to shut idle HTTPS clients down without cutting a request.
///
/// A request is counted from the pool's lookup (under the pool's lock, so an eviction, which checks under the same
/// lock, never takes a client a request was just given) until the engine's task for it completes. The end is counted
/// outside the lock: an eviction can only see a count that is still too high, and then keeps the client.
final class EngineClientUsage: Sendable {
    private let requests = Atomic<Int>(0)
    /// When the last request ended (or the client was made), in `NIODeadline` uptime nanoseconds.
    private let lastActive: Atomic<UInt64>

    init(now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        lastActive = Atomic(now)
    }

    /// One more request carried; called by the pool as it hands the client out (under its lock for the HTTPS clients,
    /// the only ones it shuts down).
    func begin() {
        requests.add(1, ordering: .relaxed)
    }

    /// A request ended (its engine task completed, or it failed before reaching the engine).
    func end() {
        // Released after the time is stored: a sweep that reads no request in flight (acquiring) reads this time too.
        lastActive.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
        requests.subtract(1, ordering: .releasing)
    }

    /// When the client last carried a request, if it carries none now; `nil` while one is in flight.
    var idleSince: UInt64? {
        requests.load(ordering: .acquiring) == 0 ? lastActive.load(ordering: .relaxed) : nil
    }
}
