import Courier
import Foundation
import Synchronization

/// `--max-time`: stops the whole request (its exchange, and the body still streaming to the output after the head)
/// once `seconds` have passed since it started, across the reconnections of an event stream too.
final class RequestDeadline: Sendable {
    let seconds: Double
    private let state = Mutex<State>(State())
    private let timer = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        var exchange: Exchange?
        var body: ResponseBodyStream?
        var expired = false
    }

    init(seconds: Double) {
        self.seconds = seconds
        let task = Task { [weak self] in
            // NumericOption bounds --max-time to a year; bounded here too, so that no value can overflow Duration.
            guard (try? await Task.sleep(for: .seconds(NumericOption.timerSeconds(seconds)))) != nil else { return }
            self?.expire()
        }
        timer.withLock { $0 = task }
    }

    private func expire() {
        let (exchange, body) = state.withLock { state in
            state.expired = true
            return (state.exchange, state.body)
        }
        exchange?.cancel()
        body?.cancel()
    }

    /// Whether the deadline stopped the request.
    var hasExpired: Bool { state.withLock { $0.expired } }

    /// Stops `exchange` (the request's current connection) when the deadline passes, at once if it has already.
    func watch(_ exchange: Exchange) {
        let expired = state.withLock { state in
            state.exchange = exchange
            state.body = nil
            return state.expired
        }
        if expired { exchange.cancel() }
    }

    /// Also stops `body` when the deadline passes (at once if it has already).
    func watch(_ body: ResponseBodyStream?) {
        let expired = state.withLock { state in
            state.body = body
            return state.expired
        }
        if expired { body?.cancel() }
    }

    /// The request ended: the deadline no longer applies.
    func disarm() {
        timer.withLock { $0 }?.cancel()
    }
}
