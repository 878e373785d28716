import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one place a task or an operation turns its finished response into its serializer's object, once for all of
/// its readers (the completion block or handler, the notification, `responseObject`, the async verbs).
///
/// A result is kept for every later reader only when it may be shared: no object, or a serializer whose objects are
/// immutable values (``URLResponseSerialization/returnsShareableObjects``). Any other object (an `XMLParser`, a
/// mutable container, a decoded class) goes to one reader only: the one prepared ahead is taken by the first, and
/// every other reader gets a fresh one (see ``SerializedResponse``).
final class ResponseSerialization: Sendable {
    /// What a serializer is given.
    enum Input {
        /// The response and its body.
        case body(URLResponse?, Data?)
        /// Nothing to serialize: the transfer failed before a response, or was cancelled. No serializer runs; the
        /// result has neither an object nor an error (the transfer's error speaks).
        case nothing
    }

    private struct State {
        var serializer: any URLResponseSerialization
        /// The serialization's error (`.failure`) or success, once it ran.
        var outcome: Result<Void, any Error>?
        /// The result every reader shares, once made, when it may be shared.
        var shared: SerializedResponse?
        /// A result that may not be shared, made ahead by ``prepare(_:with:)`` for the first reader to take.
        var prepared: SerializedResponse?
    }

    private let state: Mutex<State>

    init(serializer: any URLResponseSerialization) {
        state = Mutex(State(serializer: serializer))
    }

    /// The serializer. Setting it discards what an earlier one made.
    var serializer: any URLResponseSerialization {
        get { state.withLock { $0.serializer } }
        set { state.withLock { $0 = State(serializer: newValue) } }
    }

    /// The serialization's error, when it ran and failed; `nil` when it succeeded, and `nil` when it has not run.
    var outcome: Result<Void, any Error>? { state.withLock { $0.outcome } }

    /// Serializes now with `serializer` (which becomes this serialization's), so that later readers do not wait for
    /// it: a task calls this in its own task, never on the completion queue.
    func prepare(_ input: Input, with serializer: any URLResponseSerialization) {
        let result = Self.serialize(input, with: serializer)
        state.withLock { state in
            state = State(serializer: serializer)
            state.outcome = result.error.map { .failure($0) } ?? .success(())
            if result.object == nil || serializer.returnsShareableObjects {
                state.shared = result
            } else {
                state.prepared = result
            }
        }
    }

    /// The result for a reader: the shared one, else the one made ahead (which only this reader gets), else one
    /// made now from `input` (kept for the next readers when it may be shared).
    func take(_ input: () -> Input) -> SerializedResponse {
        let (ready, serializer) = state.withLock { state -> (SerializedResponse?, any URLResponseSerialization) in
            if let shared = state.shared { return (shared, state.serializer) }
            defer { state.prepared = nil }
            return (state.prepared, state.serializer)
        }
        if let ready { return ready }
        let result = Self.serialize(input(), with: serializer)
        let shareable = result.object == nil || serializer.returnsShareableObjects
        return state.withLock { state in
            if state.outcome == nil { state.outcome = result.error.map { .failure($0) } ?? .success(()) }
            guard shareable else { return result }
            if state.shared == nil { state.shared = result }
            return state.shared ?? result
        }
    }

    /// The result as `serializer` makes it, for a reader that brings its own serializer (the async verbs): the
    /// shared result when it is this serialization's serializer, else made now (and not kept).
    func result(with serializer: any URLResponseSerialization, for input: () -> Input) -> SerializedResponse {
        let shared = state.withLock { state in
            (serializer as AnyObject) === (state.serializer as AnyObject) ? state.shared : nil
        }
        return shared ?? Self.serialize(input(), with: serializer)
    }

    private static func serialize(_ input: Input, with serializer: any URLResponseSerialization) -> SerializedResponse {
        switch input {
        case .body(let response, let data):
            return SerializedResponse(serializer: serializer, response: response, data: data)
        case .nothing:
            return SerializedResponse(object: nil, error: nil)
        }
    }
}
