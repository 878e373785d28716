@testable import Courier
import Foundation
import Synchronization

/// A test clock: scheduled actions run only when the test advances time, in due order.
final class ManualActivityScheduler: ActivityScheduler {
    private struct Pending: Sendable {
        let due: TimeInterval
        let order: Int
        let action: @Sendable () -> Void
    }

    private struct State: Sendable {
        var now: TimeInterval = 0
        var nextOrder = 0
        var pending: [Pending] = []
    }

    private let state = Mutex(State())

    var now: TimeInterval { state.withLock { $0.now } }

    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.pending.append(Pending(due: state.now + delay, order: state.nextOrder, action: action))
            state.nextOrder += 1
        }
    }

    /// Moves the clock forward, running every action that falls due (including ones scheduled
    /// by those actions), each at its own due time.
    func advance(by interval: TimeInterval) {
        let target = state.withLock { $0.now + interval }
        while true {
            let next: Pending? = state.withLock { state in
                guard let index = state.pending.indices
                    .filter({ state.pending[$0].due <= target + 1e-9 })
                    .min(by: { (state.pending[$0].due, state.pending[$0].order) < (state.pending[$1].due, state.pending[$1].order) })
                else { return nil }
                let item = state.pending.remove(at: index)
                state.now = max(state.now, item.due)
                return item
            }
            guard let next else { break }
            next.action()
        }
        state.withLock { $0.now = target }
    }
}
