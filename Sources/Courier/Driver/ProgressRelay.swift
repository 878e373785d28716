import Foundation

/// The latest progress of both directions of a driven request, and who hears about it: `progressUpdates` streams
/// and the façade's blocks. A value kept inside ``ExchangeDriver``'s lock; the driver calls the listeners it returns
/// outside the lock.
///
/// Across attempts the totals carry on: an attempt that continues after kept bytes reports totals that include them
/// (its exchange counts from its resumption's offset), so the relay only keeps the newest snapshot.
struct ProgressRelay: Sendable {
    /// One party that hears about one direction's progress.
    struct Listener: Sendable {
        let direction: TransferDirection
        /// Called with each new snapshot, outside the driver's lock, on the thread that reported it.
        let deliver: @Sendable (TransferProgress) -> Void
        /// Called once when the request completes (a stream ends); `nil` for a block.
        let end: (@Sendable () -> Void)?
    }

    /// Request body bytes: none sent, total unknown.
    private(set) var sent = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: -1)
    /// Response body bytes: none received, total unknown.
    private(set) var received = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: -1)
    private var listeners: [UUID: Listener] = [:]
    /// Whether the request completed: listeners added later are ended at once.
    private(set) var isEnded = false

    /// Records `progress` as the newest of its direction; returns the listeners to tell.
    mutating func record(_ progress: TransferProgress, _ direction: TransferDirection) -> [Listener] {
        switch direction {
        case .upload: sent = progress
        case .download: received = progress
        }
        // No listener (the common case): no array is made.
        return listeners.isEmpty ? [] : listeners.values.filter { $0.direction == direction }
    }

    /// Adds a listener under `key`; `false` when the request completed (nothing is added).
    mutating func add(_ listener: Listener, key: UUID) -> Bool {
        guard !isEnded else { return false }
        listeners[key] = listener
        return true
    }

    mutating func remove(key: UUID) {
        listeners[key] = nil
    }

    /// Marks the request completed; returns the listeners to end.
    mutating func end() -> [Listener] {
        isEnded = true
        defer { listeners.removeAll() }
        return Array(listeners.values)
    }
}
