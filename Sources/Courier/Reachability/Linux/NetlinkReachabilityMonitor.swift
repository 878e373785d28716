#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
import Dispatch
import Foundation
import Glibc
import Synchronization

/// Watches the kernel's link, address and route events on a netlink socket and re-evaluates the
/// target's route after each burst of them. No timer: the reader thread sleeps in `poll(2)` until
/// an event or the stop signal (the closing of a socket pair) arrives.
final class NetlinkReachabilityMonitor: ReachabilityMonitor {
    private struct Running: Sendable {
        /// One end of the stop socket pair; closing it wakes the reader, which then exits.
        let stopDescriptor: Int32
        let thread: ReaderThreadHandle
    }

    /// What `stop` needs to know about the reader thread: when it has exited, and who it is.
    private final class ReaderThreadHandle: Sendable {
        let exited = DispatchSemaphore(value: 0)
        let identity = Mutex<pthread_t?>(nil)

        var isCurrent: Bool { identity.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
    }

    private let target: ReachabilityTarget
    private let resolver: ReachabilityHostResolver
    private let namespacePath: String?
    private let running = Mutex<Running?>(nil)

    /// `namespacePath` (a `/run/netns/<name>` file) makes the sockets watch that network
    /// namespace instead of the process's own.
    init(target: ReachabilityTarget, resolver: ReachabilityHostResolver, namespacePath: String? = nil) {
        self.target = target
        self.resolver = resolver
        self.namespacePath = namespacePath
    }

    deinit { stop() }

    func start(reporting report: @escaping @Sendable (NetworkReachabilityStatus) -> Void) {
        running.withLock { running in
            guard running == nil else { return }
            // Without a netlink socket (e.g. a sandbox forbidding it) the status stays unknown
            // and a later start tries again.
            guard let sockets = try? openSockets() else { return }
            var stopPair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &stopPair) == 0 else {
                sockets.events.close()
                sockets.queries.close()
                return
            }
            let handle = ReaderThreadHandle()
            let reader = NetlinkEventReader(
                events: sockets.events, evaluator: RouteEvaluator(socket: sockets.queries), stopDescriptor: stopPair[0],
                target: target, resolver: resolver, report: report)
            let thread = Thread {
                handle.identity.withLock { $0 = pthread_self() }
                var reader = reader
                reader.run()
                handle.exited.signal()
            }
            thread.name = "Courier reachability"
            thread.start()
            running = Running(stopDescriptor: stopPair[1], thread: handle)
        }
    }

    func stop() {
        guard let state = running.withLock({ running in defer { running = nil }; return running }) else { return }
        _ = close(state.stopDescriptor)
        // The reader closes its own descriptors on the way out; wait for that, unless this is the
        // reader itself (a manager released from within its own report).
        if !state.thread.isCurrent { state.thread.exited.wait() }
    }

    private func openSockets() throws(NetlinkSocketError) -> (events: NetlinkSocket, queries: NetlinkSocket) {
        @Sendable func make() throws(NetlinkSocketError) -> SocketPair {
            let events = try NetlinkSocket.open(groups: Netlink.Group.reachability)
            do {
                let queries = try NetlinkSocket.open(groups: 0)
                queries.setReceiveTimeout(milliseconds: 1000)
                return SocketPair(events: events, queries: queries)
            } catch {
                events.close()
                throw error
            }
        }
        let pair = if let namespacePath { try NetworkNamespace.run(in: namespacePath, make) } else { try make() }
        return (pair.events, pair.queries)
    }

    private struct SocketPair: Sendable {
        let events: NetlinkSocket
        let queries: NetlinkSocket
    }
}
#endif
