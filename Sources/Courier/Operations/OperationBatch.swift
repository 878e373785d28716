import Foundation
import Synchronization

extension URLConnectionOperation {
    /// AFNetworking's batch: returns `operations` followed by one more operation that depends on
    /// them all. Enqueue the whole array. After each operation's own completion block (and any
    /// work it queued in its completion group), `progress` runs on the main queue with the number
    /// finished so far and the total; `completion` runs on the main queue after all of them, with
    /// `operations`. An empty batch completes as soon as its final operation runs.
    ///
    /// Set the operations' completion blocks before calling this: the batch wraps them.
    ///
    /// `completion` runs from the final operation, so cancelling that one (for instance with the
    /// queue's `cancelAllOperations()`) means it never runs; to stop a batch and still be told,
    /// cancel `operations` only.
    public static func batch(
        of operations: [URLConnectionOperation],
        progress: (@Sendable (_ numberOfFinishedOperations: Int, _ totalNumberOfOperations: Int) -> Void)?,
        completion: (@Sendable (_ operations: [URLConnectionOperation]) -> Void)?
    ) -> [Operation] {
        let group = DispatchGroup()
        let finished = Atomic<Int>(0)
        let total = operations.count
        let final = BlockOperation {
            group.notify(queue: .main) { completion?(operations) }
        }
        for operation in operations {
            group.enter()
            let original = operation.completionBlock
            let operationGroup = operation.completionContext.group ?? operation.privateCompletionGroup
            operation.completionBlock = {
                original?()
                // Once the block and whatever it queued in its group are done.
                operationGroup.notify(queue: .main) {
                    let count = finished.add(1, ordering: .relaxed).newValue
                    progress?(count, total)
                    group.leave()
                }
            }
            final.addDependency(operation)
        }
        return operations + [final]
    }
}
