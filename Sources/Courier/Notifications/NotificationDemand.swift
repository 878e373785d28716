import Synchronization

/// Whether Courier posts ``Foundation/NSNotification/Name/courierRequestDidStart`` and
/// ``Foundation/NSNotification/Name/courierRequestDidFinish``.
///
/// Each of them is a hop to the main queue, a thread wake-up per request, which costs more than some requests
/// themselves; `NotificationCenter` cannot tell whether anyone listens. So Courier posts them only while someone
/// asked: ``isEnabled`` set to `true`, or a ``NetworkActivityIndicatorManager`` that is enabled (it turns them on
/// for itself). A request posts both or neither: whether it posts is decided when it starts.
///
/// AFNetworking's own notifications (operations' `.courierOperationDidStart` / `.courierOperationDidFinish`,
/// session tasks' `.courierTaskDidResume` and the others) are posted by default, as AFNetworking posts them;
/// ``CourierNotifications`` turns them off.
public enum RequestNotifications {
    /// Whether the request notifications are posted for everyone (for your own observers). Default `false`.
    public static var isEnabled: Bool {
        get { NotificationDemand.request.isSwitchedOn }
        set { NotificationDemand.request.switchOn(newValue) }
    }

    /// Counts one more (`true`) or one fewer (`false`) listener that needs them.
    static func listener(_ listens: Bool) {
        NotificationDemand.request.listener(listens)
    }
}

/// Whether Courier posts AFNetworking's notifications: the session tasks' and the operations'.
///
/// They are on by default, as in AFNetworking. Each one is a hop to a queue (the main queue, or a session's
/// completion queue), a thread wake-up that nobody needs when nobody observes them, and `NotificationCenter` cannot
/// tell; an application that does not observe them saves that work by turning them off. A task or an operation
/// decides when it is made, so it posts all of its notifications or none. The request notifications have their own
/// switch, ``RequestNotifications``, off by default.
public enum CourierNotifications {
    /// Whether session tasks post ``Foundation/NSNotification/Name/courierTaskDidResume``,
    /// ``Foundation/NSNotification/Name/courierTaskDidSuspend``, ``Foundation/NSNotification/Name/courierTaskWillRetry``
    /// and ``Foundation/NSNotification/Name/courierTaskDidComplete``. Default `true`.
    public static var postsTaskNotifications: Bool {
        get { NotificationDemand.task.isSwitchedOn }
        set { NotificationDemand.task.switchOn(newValue) }
    }

    /// Whether operations post ``Foundation/NSNotification/Name/courierOperationDidStart`` and
    /// ``Foundation/NSNotification/Name/courierOperationDidFinish``. Default `true`.
    public static var postsOperationNotifications: Bool {
        get { NotificationDemand.operation.isSwitchedOn }
        set { NotificationDemand.operation.switchOn(newValue) }
    }
}

/// The reasons to post one family of notifications: its public switch plus each listener Courier itself runs (an
/// enabled ``NetworkActivityIndicatorManager`` for the request family). Reading it is one relaxed atomic load, taken
/// before any hop to a queue, so a family nobody wants costs nothing more.
final class NotificationDemand: Sendable {
    /// `courierRequestDidStart` / `courierRequestDidFinish`: off unless asked for.
    static let request = NotificationDemand(switchedOn: false)
    /// The session tasks' notifications: on, as in AFNetworking.
    static let task = NotificationDemand(switchedOn: true)
    /// The operations' notifications: on, as in AFNetworking.
    static let operation = NotificationDemand(switchedOn: true)

    private let reasons: Atomic<Int>
    private let switchState: Mutex<Bool>

    private init(switchedOn: Bool) {
        reasons = Atomic(switchedOn ? 1 : 0)
        switchState = Mutex(switchedOn)
    }

    /// Whether something starting now posts this family.
    var isPosted: Bool { reasons.load(ordering: .relaxed) > 0 }

    var isSwitchedOn: Bool { switchState.withLock { $0 } }

    func switchOn(_ on: Bool) {
        let delta = switchState.withLock { current -> Int in
            guard current != on else { return 0 }
            current = on
            return on ? 1 : -1
        }
        reasons.add(delta, ordering: .relaxed)
    }

    /// Counts one more (`true`) or one fewer (`false`) listener that needs this family.
    func listener(_ listens: Bool) {
        reasons.add(listens ? 1 : -1, ordering: .relaxed)
    }
}
