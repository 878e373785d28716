import Dispatch
import Foundation
import Synchronization

/// Tracks whether network requests are running and drives a network activity indicator (a
/// status-bar spinner, a command-line spinner, ...) with delays that avoid flicker.
///
/// When ``isEnabled`` is `true` it follows every Courier request by itself, through the
/// ``Foundation/NSNotification/Name/courierRequestDidStart`` and ``Foundation/NSNotification/Name/courierRequestDidFinish``
/// notifications; other work can be counted with ``incrementActivityCount()`` and
/// ``decrementActivityCount()``. As in AFNetworking 2.0, the indicator appears as soon as one
/// request is active and disappears ``completionDelay`` (0.17 s, 2.0's invisibility delay) after the
/// last one ended, so back-to-back requests do not make it flicker. An ``activationDelay`` (AFNetworking
/// 3 uses 1.0 s) keeps it hidden for requests shorter than that.
///
/// Courier draws nothing itself: set the block that shows or hides your indicator with
/// ``setNetworkingActivityActionWithBlock(_:)``.
public final class NetworkActivityIndicatorManager: Sendable {
    /// The manager shared by the whole process. Disabled until ``isEnabled`` is set.
    public static let shared = NetworkActivityIndicatorManager()

    private struct State: Sendable {
        var machine = ActivityIndicatorStateMachine()
        var action: (@Sendable (Bool) -> Void)?
        /// Whether this manager counts among the listeners that make Courier post its request notifications.
        var listens = false
    }

    private let state = Mutex(State())
    private let scheduler: any ActivityScheduler
    private let deliver: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let center: NotificationCenter
    private let observers = Mutex(ObserverTokens(tokens: []))

    /// A manager that follows the requests announced on `NotificationCenter.default`, with its
    /// timers and its action block on the main queue.
    public convenience init() {
        self.init(
            center: .default, scheduler: MainQueueActivityScheduler(),
            deliver: { work in DispatchQueue.main.async(execute: work) })
    }

    /// Everything injectable, for tests: the notification center to observe, the timer scheduler
    /// and how the action block is delivered.
    init(center: NotificationCenter, scheduler: any ActivityScheduler,
         deliver: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.center = center
        self.scheduler = scheduler
        self.deliver = deliver
        let started = center.addObserver(forName: .courierRequestDidStart, object: nil, queue: nil) { [weak self] _ in
            self?.incrementActivityCount()
        }
        let finished = center.addObserver(forName: .courierRequestDidFinish, object: nil, queue: nil) { [weak self] _ in
            self?.decrementActivityCount()
        }
        observers.withLock { $0 = ObserverTokens(tokens: [started, finished]) }
    }

    deinit {
        observers.withLock { $0 }.tokens.forEach(center.removeObserver)
        if state.withLock({ $0.listens }) { RequestNotifications.listener(false) }
    }

    /// Whether the manager drives the indicator. Default `false`. Disabling hides it at once. While enabled, Courier
    /// posts the request notifications the manager follows (see ``RequestNotifications``).
    public var isEnabled: Bool {
        get { state.withLock { $0.machine.isEnabled } }
        set {
            let changed = state.withLock { state -> Bool in
                guard state.listens != newValue else { return false }
                state.listens = newValue
                return true
            }
            if changed { RequestNotifications.listener(newValue) }
            transition { $0.setEnabled(newValue) }
        }
    }

    /// Whether the indicator is currently shown.
    public var isNetworkActivityIndicatorVisible: Bool { state.withLock { $0.machine.isIndicatorVisible } }

    /// Seconds activity must last before the indicator appears. Default 0: it appears at once, as in
    /// AFNetworking 2.0 (AFNetworking 3 waits 1.0 s).
    public var activationDelay: TimeInterval {
        get { state.withLock { $0.machine.activationDelay } }
        set { state.withLock { $0.machine.activationDelay = newValue } }
    }

    /// Seconds the indicator stays on after the last activity ended (AFNetworking 2.0's invisibility delay).
    /// Default 0.17.
    public var completionDelay: TimeInterval {
        get { state.withLock { $0.machine.completionDelay } }
        set { state.withLock { $0.machine.completionDelay = newValue } }
    }

    /// The number of activities (requests) running, as counted by this manager.
    var activityCount: Int { state.withLock { $0.machine.activityCount } }

    /// Counts one more running activity.
    public func incrementActivityCount() {
        transition { $0.incrementActivityCount() }
    }

    /// Counts one fewer running activity; never below zero.
    public func decrementActivityCount() {
        transition { $0.decrementActivityCount() }
    }

    /// Sets the block that shows (`true`) or hides (`false`) the indicator, called on the main
    /// queue when visibility changes. Nil by default (nothing is drawn).
    public func setNetworkingActivityActionWithBlock(_ block: (@Sendable (Bool) -> Void)?) {
        state.withLock { $0.action = block }
    }

    private func transition(_ change: (inout ActivityIndicatorStateMachine) -> [ActivityIndicatorStateMachine.Effect]) {
        let (effects, action) = state.withLock { state in (change(&state.machine), state.action) }
        for effect in effects {
            switch effect {
            case .scheduleTimer(let delay, let generation):
                scheduler.schedule(after: delay) { [weak self] in
                    self?.transition { $0.timerFired(generation: generation) }
                }
            case .setVisible(let visible):
                if let action { deliver { action(visible) } }
            }
        }
    }
}

/// The notification-center registrations of a manager. The tokens are opaque: they are never
/// read or mutated, only handed back to `removeObserver`, which is thread-safe, so sharing them
/// across threads is sound although `NSObjectProtocol` is not declared `Sendable`.
private struct ObserverTokens: @unchecked Sendable {
    let tokens: [any NSObjectProtocol]
}
