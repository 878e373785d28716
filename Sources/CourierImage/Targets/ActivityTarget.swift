import Courier
import Dispatch
import Foundation
import Synchronization

/// Anything that shows whether work is going on — a spinner, a status line — with the behaviour of AFNetworking's
/// `UIActivityIndicatorView+AFNetworking`, without UIKit: ``bindActivity(to:queue:)-(SessionTask,_)`` and
/// ``bindActivity(to:queue:)-(URLConnectionOperation,_)``.
public protocol ActivityTarget: AnyObject, Sendable {
    /// Shows `isActive`. Called on the binding's queue.
    func display(isActive: Bool)
}

extension ActivityTarget {
    /// Active while `task` runs, inactive once it is suspended or completes (`setAnimatingWithStateOfTask:`), on
    /// `queue`, until the binding is cancelled. The task's state is shown at once; the changes come from its
    /// notifications (`.courierTaskDidResume`, `.courierTaskDidSuspend`, `.courierTaskDidComplete`), which
    /// Courier's `CourierNotifications.postsTaskNotifications` turns off for tasks made after it (default on).
    /// - Returns: The binding; cancel it to stop the updates.
    @discardableResult
    public func bindActivity(to task: SessionTask, queue: DispatchQueue = .main) -> TargetBinding {
        bind(to: task, initiallyActive: task.state == .running, queue: queue, changes: [
            (.courierTaskDidResume, true), (.courierTaskDidSuspend, false), (.courierTaskDidComplete, false),
        ])
    }

    /// Active while `operation` executes, inactive once it finishes (`setAnimatingWithStateOfOperation:`), from its
    /// `.courierOperationDidStart` and `.courierOperationDidFinish` notifications
    /// (`CourierNotifications.postsOperationNotifications`, default on), on `queue`.
    /// - Returns: The binding; cancel it to stop the updates.
    @discardableResult
    public func bindActivity(to operation: URLConnectionOperation, queue: DispatchQueue = .main) -> TargetBinding {
        bind(to: operation, initiallyActive: operation.isExecuting, queue: queue, changes: [
            (.courierOperationDidStart, true), (.courierOperationDidFinish, false),
        ])
    }

    /// Shows `initiallyActive`, then each change the notifications about `object` announce.
    private func bind(
        to object: some AnyObject & Sendable, initiallyActive: Bool, queue: DispatchQueue, changes: [(Notification.Name, Bool)]
    ) -> TargetBinding {
        let binding = TargetBinding()
        let center = NotificationCenter.default
        let observers = changes.map { name, active in
            center.addObserver(forName: name, object: object, queue: nil) { [weak self] _ in
                queue.async { [weak self] in
                    guard !binding.isCancelled else { return }
                    self?.display(isActive: active)
                }
            }
        }
        queue.async { [weak self] in
            guard !binding.isCancelled else { return }
            self?.display(isActive: initiallyActive)
        }
        let registered = ObserverTokens(observers)
        binding.onCancel { registered.remove(from: center) }
        return binding
    }
}

/// The notification observers of a binding, removed when it is cancelled.
private final class ObserverTokens: Sendable {
    private let tokens: Mutex<[any NSObjectProtocol]>

    init(_ tokens: sending [any NSObjectProtocol]) { self.tokens = Mutex(tokens) }

    func remove(from center: NotificationCenter) {
        // Removing an observer calls nothing of ours back, so it is done under the lock (the tokens cannot leave it).
        tokens.withLock { tokens in
            for token in tokens { center.removeObserver(token) }
            tokens = []
        }
    }
}
