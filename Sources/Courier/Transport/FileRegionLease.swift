import NIOCore
import Synchronization

/// Keeps the file handles behind a request's file regions open until the request has ended.
///
/// AsyncHTTPClient's stream writer lets the producer continue as soon as the channel is writable,
/// before a queued region has been sent, so a handle closed when the producer finishes could
/// still be needed by `sendfile(2)`. The lease closes its handles once the engine reports the
/// request's end (or at once, for a handle handed over after that).
final class FileRegionLease: Sendable {
    private struct State {
        var handles: [NIOFileHandle] = []
        var ended = false
    }

    private let state = Mutex(State())

    /// Keeps `handle` open until the request ends.
    func keep(_ handle: NIOFileHandle) {
        let closeNow = state.withLock { state -> Bool in
            guard !state.ended else { return true }
            state.handles.append(handle)
            return false
        }
        if closeNow { try? handle.close() }
    }

    /// The request has ended: closes every handle kept so far.
    func requestEnded() {
        let handles = state.withLock { state -> [NIOFileHandle] in
            state.ended = true
            defer { state.handles = [] }
            return state.handles
        }
        for handle in handles { try? handle.close() }
    }
}
