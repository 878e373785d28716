import Dispatch

/// Where the files that response bodies go to are made, opened and given their final names: one serial queue for the
/// process.
///
/// Making or renaming a file takes its directory's lock in the kernel, and making one allocates an inode, which ext4
/// does slowly beside recently removed files (a scan of the inode table). Done from several threads at once, as a
/// batch of small downloads does, the threads waiting for that lock spin on it in the kernel: a quarter of such a
/// batch's CPU, measured with `perf` over 1,000 files on two cores. Done here, they wait in turn without spinning, and
/// without blocking a thread of Swift's cooperative pool on a slow file system: waiting tasks are suspended, and the
/// cores are free for the transfers. The writes themselves are not serialized (each file has its ``FileWriteQueue``).
package enum DirectoryOperationQueue {
    private static let queue = DispatchQueue(label: "Courier.DirectoryOperations")

    /// Runs `operation` on the queue after those queued before it; its result or error.
    package static func run<Result: Sendable>(_ operation: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Swift.Result(catching: operation)) }
        }
    }

    /// Runs `operation` on the queue and waits for it, blocking the calling thread: for callers on a dispatch queue of
    /// their own (a completion queue), never on Swift's cooperative pool (use ``run(_:)``) nor from `operation` itself.
    package static func runBlocking<Result>(_ operation: () throws -> Result) rethrows -> Result {
        try queue.sync(execute: operation)
    }
}
