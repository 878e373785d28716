import Foundation
import Synchronization

/// The server-trust handlers of the requests waiting on one engine client, oldest first.
///
/// The engine makes connections for its pool, not for a request, and its connection hook does not say which request
/// a connection is for; as URLSession asks the task that made a connection, the handshake here asks the request that
/// has waited longest on this client (the one a new connection is most likely made for). A request is listed from
/// just before it is handed to the engine until its response head arrives or it fails.
final class ServerTrustAnswerers: Sendable {
    typealias Handler = @Sendable (ServerTrust) async -> ServerTrustDecision

    private struct Waiting {
        let id: UInt64
        let port: Int
        let handler: Handler
    }

    private struct State {
        var nextID: UInt64 = 0
        var waiting: [Waiting] = []
    }

    private let state = Mutex(State())

    /// Lists `handler` of a request to `port`; returns the ticket for ``remove(_:)``.
    func add(_ handler: @escaping Handler, port: Int) -> UInt64 {
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

    /// The handler of the request that has waited longest, with its port; nil when no waiting request has one.
    var oldest: (handler: Handler, port: Int)? {
        state.withLock { state in state.waiting.first.map { ($0.handler, $0.port) } }
    }
}
