import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts every notification Courier sends about its requests, tasks and operations, on the queue each one is
/// documented to arrive on. Whether one is posted at all is the caller's decision, taken once when the request, task
/// or operation starts (``NotificationDemand``), so that it posts all of its notifications or none.
enum CourierNotifier {
    /// Where a notification is posted.
    enum Delivery: Sendable {
        /// Asynchronously on the main queue (the request and operation notifications).
        case mainQueue
        /// Asynchronously on a completion queue, inside its group (the session tasks' notifications).
        case completion(CompletionContext)
    }

    /// Posts `name` with `object` and `userInfo` through `delivery`.
    static func post(
        _ name: Notification.Name, object: (any AnyObject & Sendable)?, userInfo: [String: any Sendable]? = nil,
        delivery: Delivery
    ) {
        let work: @Sendable () -> Void = {
            postNow(name, object: object, userInfo: userInfo)
        }
        switch delivery {
        case .mainQueue: DispatchQueue.main.async(execute: work)
        case .completion(let context): context.deliver(work)
        }
    }

    /// Posts `name` now, on the calling thread: for a notification that must follow a block in the same queue hop
    /// (a task's did-complete right after its completion handler).
    static func postNow(_ name: Notification.Name, object: AnyObject?, userInfo: [String: Any]?) {
        NotificationCenter.default.post(name: name, object: object, userInfo: userInfo)
    }
}
