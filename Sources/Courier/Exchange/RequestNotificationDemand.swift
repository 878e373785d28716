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
/// session tasks' `.courierTaskDidResume` / `.courierTaskDidComplete`) are always posted, as AFNetworking posts them.
public enum RequestNotifications {
    /// The number of reasons to post: the explicit switch plus each enabled activity indicator manager.
    private static let demand = Atomic<Int>(0)
    private static let explicitlyEnabled = Mutex(false)

    /// Whether the request notifications are posted for everyone (for your own observers). Default `false`.
    public static var isEnabled: Bool {
        get { explicitlyEnabled.withLock { $0 } }
        set {
            let delta = explicitlyEnabled.withLock { enabled -> Int in
                guard enabled != newValue else { return 0 }
                enabled = newValue
                return newValue ? 1 : -1
            }
            demand.add(delta, ordering: .relaxed)
        }
    }

    /// Whether a request starting now posts them.
    static var arePosted: Bool { demand.load(ordering: .relaxed) > 0 }

    /// Counts one more (`true`) or one fewer (`false`) listener that needs them.
    static func listener(_ listens: Bool) {
        demand.add(listens ? 1 : -1, ordering: .relaxed)
    }
}
