// Built with the ServiceLifecycle trait (a default one; see Package.swift).
#if ServiceLifecycle
import Foundation
import ServiceLifecycle

/// A session is a swift-service-lifecycle `Service`: put it in a `ServiceGroup` beside the services that use it,
/// before them, so it shuts down after them.
///
/// ```swift
/// let session = HTTPSessionManager(baseURL: URL(string: "https://api.example.com")!)
/// let group = ServiceGroup(
///     services: [session, api],          // `api` uses `session`; the group stops it first
///     gracefulShutdownSignals: [.sigterm],
///     logger: logger
/// )
/// try await group.run()
/// ```
///
/// Part of the package's `ServiceLifecycle` trait, one of its defaults.
extension URLSessionManager: Service {
    /// Keeps the session serving until the group shuts down gracefully; then it takes no new tasks, gives the
    /// running ones ``SessionConfiguration/shutdownGracePeriod`` to finish, cancels those still running, shuts its
    /// own transport down (once; a transport given in the configuration is the caller's) and returns. When the
    /// run is cancelled instead, every task is cancelled at once.
    ///
    /// From its start, ``GracefulShutdown`` leaves SIGTERM and SIGINT to the group: leased operations get their
    /// grace period when the group shuts down, and no signal is re-raised. An operation that took a lease before
    /// this run started had ``GracefulShutdown`` ignore both signals so it could catch them; a group that does not
    /// trap SIGINT then leaves Ctrl-C ignored, so list `.sigint` among its graceful shutdown signals too.
    public func run() async throws {
        GracefulShutdown.shared.handSignalsToServiceGroup()
        let graceful: Bool
        do {
            try await gracefulShutdown()
            graceful = true
        } catch {
            // The group cancelled the run (or the task was cancelled): no grace.
            graceful = false
        }
        GracefulShutdown.shared.beginGroupShutdown()
        invalidateSessionCancelingTasks(!graceful)
        let grace = configuration.shutdownGracePeriod
        // A cancellation while waiting (the group escalating, or an infinite grace period) cancels what still runs.
        await withTaskCancellationHandler {
            await finish(gracePeriod: graceful ? grace : 0)
        } onCancel: {
            self.invalidateSessionCancelingTasks(true)
        }
    }

    /// Waits until every task has ended and the session is invalidated, cancelling the tasks still running after
    /// `grace` seconds (none for an infinite or NaN grace period).
    private func finish(gracePeriod grace: TimeInterval) async {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.invalidated()
                return true
            }
            if grace.isFinite {
                group.addTask {
                    // A year bounds what Duration is given.
                    try? await Task.sleep(for: .seconds(min(max(grace, 0), 365 * 86_400)))
                    return false
                }
            }
            // The first to end: either every task finished, or the grace period is over and the rest are cancelled;
            // then the invalidation (transport shut down) is awaited in both cases.
            if await group.next() == false {
                self.invalidateSessionCancelingTasks(true)
            } else {
                group.cancelAll()
            }
            await group.waitForAll()
        }
    }
}
#endif
