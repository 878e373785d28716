import Dispatch
import Foundation
import Synchronization

/// Linux's counterpart of AFNetworking's background-task expiration: operations that called
/// ``URLConnectionOperation/setShouldExecuteAsBackgroundTask(expirationHandler:)`` hold a
/// lease, and when the process is asked to stop (SIGTERM or SIGINT) they get ``gracePeriod`` to
/// finish. Leases still held then have their expiration handler run on the main queue, and their
/// operation cancelled; once no lease is left the process receives the signal again with its
/// default disposition (it terminates, as it would have without Courier).
///
/// The signal handlers are installed when the first lease is taken, not before, so a process that
/// never asks for a lease keeps its own signal handling. Not an engine of its own: a
/// `DispatchSource` per signal.
///
/// Under swift-service-lifecycle the `ServiceGroup` owns the signals: once a session runs as one of its services
/// (see ``URLSessionManager/run()``), these handlers are removed and never installed again, the group's graceful
/// shutdown starts the grace period instead of a signal, and nothing is re-raised (the group decides how the
/// process ends).
public final class GracefulShutdown: Sendable {
    /// The process-wide coordinator.
    public static let shared = GracefulShutdown()

    private struct Entry {
        let handler: (@Sendable () -> Void)?
        let cancel: @Sendable () -> Void
        var expired = false
    }

    private struct State {
        var gracePeriod: TimeInterval = 5
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var stopping: Int32?
        var sources: [any DispatchSourceSignal] = []
        var terminate: @Sendable (Int32) -> Void = GracefulShutdown.reraise
        /// Whether a service group owns the signals (see ``handSignalsToServiceGroup()``).
        var servedByGroup = false
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "Courier.GracefulShutdown")

    /// How long in-flight leased operations may keep running after SIGTERM or SIGINT, in seconds.
    /// Default 5.
    public var gracePeriod: TimeInterval {
        get { state.withLock { $0.gracePeriod } }
        set { state.withLock { $0.gracePeriod = max(0, newValue) } }
    }

    /// Whether a stop signal has arrived.
    public var isShuttingDown: Bool { state.withLock { $0.stopping != nil } }

    /// The number of leases held now.
    public var activeLeaseCount: Int { state.withLock { $0.entries.count } }

    /// Takes a lease; `cancel` is called after `handler` when the grace period runs out.
    func acquire(handler: (@Sendable () -> Void)?, cancel: @escaping @Sendable () -> Void) -> ShutdownLease {
        let id = state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = Entry(handler: handler, cancel: cancel)
            return state.nextID
        }
        installSignalSources()
        return ShutdownLease(id: id, coordinator: self)
    }

    /// Gives a lease back; the last one returned during a shutdown lets the process stop.
    func release(_ id: UInt64) {
        let signal: Int32? = state.withLock { state in
            guard state.entries.removeValue(forKey: id) != nil else { return nil }
            return state.entries.isEmpty ? state.stopping : nil
        }
        if let signal { finish(signal) }
    }

    /// Stops handling SIGTERM and SIGINT for good and never re-raises: a service group handles them and calls
    /// ``beginGroupShutdown()``. The signals' disposition is left as the group set it.
    func handSignalsToServiceGroup() {
        let sources = state.withLock { state in
            state.servedByGroup = true
            state.terminate = { _ in }
            defer { state.sources = [] }
            return state.sources
        }
        for source in sources { source.cancel() }
    }

    /// The service group is shutting down gracefully: leased operations get ``gracePeriod`` to finish.
    func beginGroupShutdown() {
        stop(signal: SIGTERM)
    }

    private func installSignalSources() {
        state.withLock { state in
            guard state.sources.isEmpty, !state.servedByGroup else { return }
            for number in [SIGTERM, SIGINT] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [self] in stop(signal: number) }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    private func stop(signal number: Int32) {
        let (first, empty, grace) = state.withLock { state in
            let first = state.stopping == nil
            if first { state.stopping = number }
            return (first, state.entries.isEmpty, state.gracePeriod)
        }
        guard first else { return }
        if empty {
            finish(number)
            return
        }
        queue.asyncAfter(deadline: .now() + grace) { [self] in expire() }
    }

    private func expire() {
        let expiring = state.withLock { state in
            var expiring: [Entry] = []
            for (id, entry) in state.entries where !entry.expired {
                state.entries[id]?.expired = true
                expiring.append(entry)
            }
            return expiring
        }
        DispatchQueue.main.async {
            for entry in expiring {
                entry.handler?()
                entry.cancel()
            }
        }
    }

    private func finish(_ signal: Int32) {
        let terminate = state.withLock { $0.terminate }
        terminate(signal)
    }

    private static func reraise(_ number: Int32) {
        signal(number, SIG_DFL)
        kill(getpid(), number)
    }
}

/// One operation's hold on the process during a graceful shutdown; released when the operation
/// finishes.
final class ShutdownLease: Sendable {
    let id: UInt64
    let coordinator: GracefulShutdown

    init(id: UInt64, coordinator: GracefulShutdown) {
        self.id = id
        self.coordinator = coordinator
    }

    func release() {
        coordinator.release(id)
    }
}
