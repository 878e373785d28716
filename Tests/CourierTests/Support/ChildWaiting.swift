import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How the test helpers wait for a child process they started: polled, so that no thread of Swift's cooperative
/// pool blocks (the in-process test server answers on that pool), and bounded, so that a child that never ends
/// fails its test instead of stopping the whole run.
///
/// Children are killed with SIGKILL. A process started from a thread of the pool inherits that thread's signal
/// mask, in which SIGTERM, SIGINT and SIGALRM are blocked: such a child never acts on them, but nothing blocks
/// SIGKILL.
enum ChildWaiting {
    /// Sleeps for `duration` even when the calling task is cancelled: a test cancelled by its time limit must
    /// still kill and reap its child, and `Task.sleep` in a cancelled task returns at once (the loops would spin).
    static func pause(_ duration: Duration) async {
        await Task.detached { try? await Task.sleep(for: duration) }.value
    }

    /// Waits for `process` to end. After `timeout`, or as soon as the calling task is cancelled, kills it. Returns
    /// whether it ended by itself.
    static func waitForExit(_ process: Process, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        var killed = false
        while process.isRunning {
            if !killed, Task.isCancelled || ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
                killed = true
            }
            await pause(.milliseconds(10))
        }
        return !killed
    }

    /// Waits until `pipesClosed()` after the child ended: its readers see the end of its output once every
    /// process holding the pipes has closed them. A process the child left behind may hold them for ever, so
    /// the wait is bounded; records an issue naming `what` and returns false when it runs out.
    static func waitForPipes(of what: String, limit: Duration = .seconds(10), _ pipesClosed: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !pipesClosed() {
            if ContinuousClock.now > deadline {
                Issue.record("\(what) ended, but its output pipes stayed open for \(limit): a process it started still holds them")
                return false
            }
            await pause(.milliseconds(5))
        }
        return true
    }
}
