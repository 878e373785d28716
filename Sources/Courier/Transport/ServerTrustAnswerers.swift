import Foundation
import Synchronization

/// The requests waiting on one engine client (one host and port), oldest first, with their server-trust handlers.
///
/// The engine makes connections for its pool, not for a request, and its connection hook does not say which request
/// a connection is for; as URLSession asks the task that made a connection, the handshake here asks the request that
/// has waited longest on this client (the one a new connection is most likely made for). Every request is listed,
/// with a handler or without one, so a connection made for a request without a handler is never decided by another
/// request's. A request is listed from just before it is handed to the engine until its head arrives or it fails.
final class ServerTrustAnswerers: Sendable {
    typealias Handler = @Sendable (ServerTrust) async -> ServerTrustDecision

    private struct Waiting {
        let id: UInt64
        let port: Int
        let handler: Handler?
    }

    private struct State {
        var nextID: UInt64 = 0
        var waiting: [Waiting] = []
    }

    private let state = Mutex(State())

    /// Lists a request to `port` with its handler (nil: the policy decides for it); returns the ticket for
    /// ``remove(_:)``.
    func add(_ handler: Handler?, port: Int) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.waiting.append(Waiting(id: state.nextID, port: port, handler: handler))
            return state.nextID
        }
    }

    /// Takes a request off the list.
    func remove(_ ticket: UInt64) {
        state.withLock { state in
            state.waiting.removeAll { $0.id == ticket }
        }
    }

    /// The handler of the request that has waited longest, with its port; nil when that request has none (or none
    /// waits): the policy decides.
    var oldest: (handler: Handler, port: Int)? {
        state.withLock { state in
            guard let first = state.waiting.first, let handler = first.handler else { return nil }
            return (handler, first.port)
        }
    }
}
