import Courier
import Dispatch

/// Anything that shows how far a transfer has come — a progress bar, a percentage — with the behaviour of
/// AFNetworking's `UIProgressView+AFNetworking`, without UIKit: ``bindProgress(of:direction:queue:)-(SessionTask,_,_)``
/// and ``bindProgress(of:direction:queue:)-(URLConnectionOperation,_,_)``.
public protocol ProgressTarget: AnyObject, Sendable {
    /// Shows `fraction` (0 to 1) of the transfer done. Called on the binding's queue.
    func display(progress fraction: Double)
}

extension ProgressTarget {
    /// Shows `task`'s upload or download progress as it changes (`setProgressWithUploadProgressOfTask:` and
    /// `setProgressWithDownloadProgressOfTask:`), on `queue`, until the task completes or the binding is cancelled.
    /// A transfer of unknown length shows nothing until it completes, then 1; a task that fails keeps the last
    /// fraction shown. The target is held weakly: a target gone ends nothing, and is shown nothing.
    /// - Parameters:
    ///   - task: The task.
    ///   - direction: Its upload or its download. Default `.download`.
    ///   - queue: Where ``display(progress:)`` runs. Default the main queue.
    /// - Returns: The binding; cancel it to stop the updates (the task goes on).
    @discardableResult
    public func bindProgress(of task: SessionTask, direction: TransferDirection = .download, queue: DispatchQueue = .main) -> TargetBinding {
        bind(task.progressUpdates(direction), queue: queue) { task.error == nil }
    }

    /// Shows `operation`'s upload or download progress as it changes (`setProgressWithUploadProgressOfOperation:`
    /// and `setProgressWithDownloadProgressOfOperation:`), with the rules of ``bindProgress(of:direction:queue:)-(SessionTask,_,_)``,
    /// until the operation finishes. The operation's own progress blocks are left as they are.
    @discardableResult
    public func bindProgress(
        of operation: URLConnectionOperation, direction: TransferDirection = .download, queue: DispatchQueue = .main
    ) -> TargetBinding {
        bind(operation.progressUpdates(direction), queue: queue) { operation.error == nil }
    }

    /// Shows each fraction `updates` brings, then 1 when they end and `succeeded` says so.
    private func bind(
        _ updates: AsyncStream<TransferProgress>, queue: DispatchQueue, succeeded: @escaping @Sendable () -> Bool
    ) -> TargetBinding {
        let binding = TargetBinding()
        let reader = Task { [weak self] in
            var last: Double?
            for await progress in updates {
                guard progress.totalBytesExpected > 0 else { continue }
                let fraction = min(max(Double(progress.totalBytes) / Double(progress.totalBytesExpected), 0), 1)
                guard fraction != last else { continue }
                last = fraction
                queue.async { [weak self] in
                    guard !binding.isCancelled else { return }
                    self?.display(progress: fraction)
                }
            }
            // The sequence ends when the transfer completes: a transfer of unknown length is done now.
            guard last != 1, !binding.isCancelled, succeeded(), self != nil else { return }
            queue.async { [weak self] in
                guard !binding.isCancelled else { return }
                self?.display(progress: 1)
            }
        }
        binding.onCancel { reader.cancel() }
        return binding
    }
}
