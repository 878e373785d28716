import NIOCore
import Synchronization

/// Holds the engine's read of a response while a request body of known length is fully written but the engine has
/// not yet taken in its end.
///
/// AsyncHTTPClient (1.37, and its main branch) ends a request as soon as the response's last part has been handed to
/// its delegate with the response's end already in, whatever its own record of the request body says; that record
/// is updated one event-loop hop after the body's producer returns. When the server's whole answer arrives in the
/// read before that hop, the body's end later finds the request over and never reaches the connection, which stays
/// leased for ever. A server answers once the whole body has arrived, so the window opens when the socket has taken
/// the body's last byte and closes once the engine has taken in the end: the read is held in that window only, as
/// there is nothing left to upload. A server that answers before the body has arrived is not covered (holding the
/// read while the body still goes could deadlock a server that echoes it).
///
/// The gate opens at the first of: the engine wrote the body's end (`didSendRequest`); one loop turn after the
/// body's producer ended, whatever its outcome (the engine takes in the end, or a failure, in the turn the producer
/// ends: a failed end write reports no `didSendRequest`, and the engine then delivers its error only after the held
/// part, so waiting for that call alone would wait for ever); the request ended, failed or was cancelled; the response
/// head says the connection closes after it (nothing can stay leased, and a close read while the part is held would
/// turn a whole response into a failure).
final class RequestBodyEndGate: Sendable {
    private struct State {
        /// Bytes not yet written to the socket.
        var left: Int64
        var held: EventLoopPromise<Void>?
        var open = false
    }

    private let state: Mutex<State>

    /// - Parameter length: The body's length.
    init(length: Int64) {
        state = Mutex(State(left: length))
    }

    /// The socket took `count` more bytes of the body.
    func sent(_ count: Int64) {
        state.withLock { $0.left = max($0.left - count, 0) }
    }

    /// The promise the engine's next read must wait on, or `nil` when it need not wait.
    func hold(on loop: any EventLoop) -> EventLoopPromise<Void>? {
        state.withLock { state in
            guard state.left == 0, !state.open else { return nil }
            if let held = state.held { return held }
            let held = loop.makePromise(of: Void.self)
            state.held = held
            return held
        }
    }

    /// Lets the held read go on, now and from here on.
    func open() {
        let held = state.withLock { state in
            state.open = true
            defer { state.held = nil }
            return state.held
        }
        held?.succeed(())
    }

    /// Opens the gate one turn of `loop` after `producer` ends: after the engine's own reaction to the end, which it
    /// registered on the same future before this and runs in the turn the future completes.
    func open(after producer: EventLoopFuture<Void>, on loop: any EventLoop) {
        producer.whenComplete { _ in loop.execute { self.open() } }
    }
}
