import Foundation
import Synchronization

/// Attributes the new connections of one engine client (one connection pool) to the requests that waited for them.
///
/// The engine's connection hook says only that some connection of the pool became ready. A request is *waiting* from
/// its hand-off to the engine until its head is written to a connection; when a connection becomes ready while exactly
/// one request of the pool is waiting, that request is the one it was made for. With several waiting at once the
/// connection cannot be attributed honestly, and nobody gets it (their metrics then report no connection interval).
final class ConnectionEstablishmentTracker: Sendable {
    /// One request's stay in the tracker.
    struct Ticket: Sendable {
        fileprivate let id: UInt64
        let handedOff: Date
    }

    private struct State {
        var nextID: UInt64 = 0
        var waiting: [UInt64: Date] = [:]
        var established: [UInt64: Date] = [:]
    }

    private let isSecure: Bool
    private let state = Mutex(State())

    /// - Parameter isSecure: Whether the pool's connections are TLS.
    init(isSecure: Bool) {
        self.isSecure = isSecure
    }

    /// Records a request handed to the engine now.
    func begin() -> Ticket {
        let now = Date()
        return state.withLock { state in
            state.nextID &+= 1
            state.waiting[state.nextID] = now
            return Ticket(id: state.nextID, handedOff: now)
        }
    }

    /// A connection of the pool is ready: it belongs to the waiting request when there is exactly one.
    func connectionReady() {
        let now = Date()
        state.withLock { state in
            guard state.waiting.count == 1, let id = state.waiting.keys.first else { return }
            state.established[id] = now
        }
    }

    /// The request's head went out on a connection: it no longer waits.
    func headSent(_ ticket: Ticket) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ticket.id) }
    }

    /// Forgets the request and returns the connection interval attributed to it, if any.
    func finish(_ ticket: Ticket) -> ConnectionEstablishment? {
        let end = state.withLock { state -> Date? in
            state.waiting[ticket.id] = nil
            return state.established.removeValue(forKey: ticket.id)
        }
        return end.map { ConnectionEstablishment(start: ticket.handedOff, end: $0, isSecure: isSecure) }
    }
}
