import Dispatch
import Synchronization

/// Where the files that response bodies go to are made, opened and given their final names: one at a time in the
/// process.
///
/// Making or renaming a file takes its directory's lock in the kernel, and making one allocates an inode, which ext4
/// does slowly beside recently removed files (a scan of the inode table). Done from several threads at once, as a
/// batch of small downloads does, the threads waiting for that lock spin on it in the kernel: a quarter of such a
/// batch's CPU, measured with `perf` over 1,000 files on two cores. Done one at a time here, they wait in turn without
/// spinning. The writes themselves are not serialized (each file has its ``FileWriteQueue``).
///
/// A task never blocks a thread of Swift's cooperative pool waiting for its turn: ``run(_:)`` does the operation at
/// once when no other is under way (the usual case, and no thread is woken for it), and otherwise suspends while a
/// queue of its own waits for the turn.
package enum DirectoryOperationQueue {
    /// Where a task's operation waits when another is under way.
    private static let queue = DispatchQueue(label: "Courier.DirectoryOperations")
    /// Held while an operation runs; counts the operations run. (A value for the lock to guard: the pthread `Mutex` of
    /// ThreadSanitizer builds reports races on an empty one.)
    private static let turn = Mutex(0)

    /// Runs `operation` when no other directory operation is under way; its result or error.
    package static func run<Result: Sendable>(_ operation: @escaping @Sendable () throws -> Result) async throws -> Result {
        if let done = turn.withLockIfAvailable({ run in
            run += 1
            return Swift.Result(catching: operation)
        }) { return try done.get() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: turn.withLock { run in
                    run += 1
                    return Swift.Result(catching: operation)
                })
            }
        }
    }

    /// Runs `operation` when no other directory operation is under way, blocking the calling thread until then: for
    /// callers on a dispatch queue of their own (a completion queue), never on Swift's cooperative pool (use
    /// ``run(_:)``) nor from `operation` itself.
    package static func runBlocking<Result>(_ operation: () throws -> Result) rethrows -> Result {
        if let done = try turn.withLockIfAvailable({ run -> Result in
            run += 1
            return try operation()
        }) { return done }
        // Waiting on the lock itself would spin: `Mutex` is a priority-inheriting futex, whose waiters the kernel keeps
        // spinning while the holder runs, and a holder here is in a slow system call. A 1,000-file batch just after
        // 30,000 files were removed spent 12–19 % of its CPU samples spinning there (`rt_mutex_slowlock_block` and
        // `_MutexHandle._lockSlow`; 0.6–1.2 % with this). Waiters line up on the queue instead, asleep, and only
        // the queue's thread waits for the lock.
        return try queue.sync {
            try turn.withLock { run in
                run += 1
                return try operation()
            }
        }
    }
}
