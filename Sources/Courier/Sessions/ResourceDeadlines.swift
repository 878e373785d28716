import Dispatch
import Synchronization

/// A session's resource timeouts (``SessionConfiguration/timeoutIntervalForResource``), kept by one timer for all
/// of its tasks.
///
/// A dispatch timer per task cost two wake-ups of dispatch's manager thread per request (arming it, cancelling it)
/// for a limit of seven days by default that almost never fires. Here a task's start and end only touch a
/// dictionary: the one timer is re-armed only when a deadline earlier than the armed one arrives (with one timeout
/// for the whole session, only the first) and when it fires.
final class ResourceDeadlines: Sendable {
    private struct State {
        /// The one timer; it lives under the lock, which also orders its arming.
        let timer: any DispatchSourceTimer
        var deadlines: [ObjectIdentifier: (deadline: DispatchTime, expire: @Sendable () -> Void)] = [:]
        /// When the timer fires next, or `nil` when it is not armed.
        var armedFor: DispatchTime?
    }

    private let state: Mutex<State>

    init() {
        state = Mutex(State(timer: DispatchSource.makeTimerSource(queue: .global())))
        state.withLock { state in
            state.timer.setEventHandler { [weak self] in self?.fire() }
            state.timer.resume()
        }
    }

    deinit {
        state.withLock { $0.timer.cancel() }
    }

    /// Calls `expire` at `deadline` unless ``remove(_:)`` comes first.
    func add(_ task: AnyObject, deadline: DispatchTime, expire: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.deadlines[ObjectIdentifier(task)] = (deadline, expire)
            // Armed under the lock: two tasks arming outside it could leave the later deadline armed.
            if state.armedFor.map({ deadline < $0 }) ?? true {
                state.armedFor = deadline
                state.timer.schedule(deadline: deadline, leeway: .milliseconds(10))
            }
        }
    }

    /// Forgets the task's deadline (it ended).
    func remove(_ task: AnyObject) {
        _ = state.withLock { $0.deadlines.removeValue(forKey: ObjectIdentifier(task)) }
    }

    private func fire() {
        let now = DispatchTime.now()
        let expired = state.withLock { state -> [@Sendable () -> Void] in
            let due = state.deadlines.filter { $0.value.deadline <= now }
            for key in due.keys { state.deadlines.removeValue(forKey: key) }
            state.armedFor = state.deadlines.values.map(\.deadline).min()
            if let next = state.armedFor { state.timer.schedule(deadline: next, leeway: .milliseconds(10)) }
            return due.values.map(\.expire)
        }
        for expire in expired { expire() }
    }
}
