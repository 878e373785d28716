import Synchronization

/// Entries in memory, least recently used evicted first once their cost passes the capacity.
final class MemoryCacheStore: Sendable {
    /// The most bytes held.
    let capacity: Int

    private struct State {
        var entries: [String: (entry: CachedEntry, lastUse: UInt64)] = [:]
        var cost = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = Swift.max(0, capacity)
    }

    /// The bytes held now.
    var cost: Int { state.withLock { $0.cost } }

    func entry(for key: String) -> CachedEntry? {
        state.withLock { state in
            guard let found = state.entries[key] else { return nil }
            state.clock &+= 1
            state.entries[key] = (found.entry, state.clock)
            return found.entry
        }
    }

    /// Stores `entry`, evicting the least recently used until everything fits; an entry larger than the whole
    /// capacity is not kept.
    func store(_ entry: CachedEntry, for key: String) {
        let cost = entry.cost
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.cost -= old.entry.cost }
            guard cost <= capacity else { return }
            // Eviction scans for the oldest: cheap next to the I/O the cache saves, and entries are few.
            while state.cost + cost > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.cost -= oldest.value.entry.cost
            }
            state.clock &+= 1
            state.entries[key] = (entry, state.clock)
            state.cost += cost
        }
    }

    func remove(_ key: String) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.cost -= old.entry.cost }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }
}
