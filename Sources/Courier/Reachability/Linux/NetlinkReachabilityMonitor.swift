#if os(Linux)
import Dispatch
import Foundation
import Glibc
import Synchronization

/// Watches the kernel's link, address and route events on a netlink socket and re-evaluates the
/// target's route after each burst of them. No timer: the reader thread sleeps in `poll(2)` until
/// an event or the stop signal (the closing of a pipe) arrives.
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
    private let resolver: HostResolver
    private let namespacePath: String?
    private let running = Mutex<Running?>(nil)

    /// `namespacePath` (a `/run/netns/<name>` file) makes the sockets watch that network
    /// namespace instead of the process's own.
    init(target: ReachabilityTarget, resolver: HostResolver, namespacePath: String? = nil) {
        self.target = target
        self.resolver = resolver
        self.namespacePath = namespacePath
    }

    deinit { stop() }

    func start(reporting report: @escaping @Sendable (NetworkReachabilityStatus) -> Void) {
        running.withLock { running in
            guard running == nil else { return }
            guard let sockets = try? openSockets() else {
                report(.notReachable)
                return
            }
            var pipeEnds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeEnds) == 0 else {
                sockets.events.close()
                sockets.queries.close()
                report(.notReachable)
                return
            }
            let handle = ReaderThreadHandle()
            let reader = Reader(
                events: sockets.events, evaluator: RouteEvaluator(socket: sockets.queries), stopDescriptor: pipeEnds[0],
                target: target, resolver: resolver, report: report)
            let thread = Thread {
                handle.identity.withLock { $0 = pthread_self() }
                var reader = reader
                reader.run()
                handle.exited.signal()
            }
            thread.name = "Courier reachability"
            thread.start()
            running = Running(stopDescriptor: pipeEnds[1], thread: handle)
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

/// The loop run by the monitor's thread. Owns the two sockets and the read end of the stop pipe
/// and closes them when it ends.
private struct Reader {
    let events: NetlinkSocket
    var evaluator: RouteEvaluator
    let stopDescriptor: Int32
    let target: ReachabilityTarget
    let resolver: HostResolver
    let report: @Sendable (NetworkReachabilityStatus) -> Void
    var debouncer = EventDebouncer()
    var resolvedAddresses: [IPAddress] = []

    init(events: NetlinkSocket, evaluator: RouteEvaluator, stopDescriptor: Int32, target: ReachabilityTarget,
         resolver: HostResolver, report: @escaping @Sendable (NetworkReachabilityStatus) -> Void) {
        self.events = events
        self.evaluator = evaluator
        self.stopDescriptor = stopDescriptor
        self.target = target
        self.resolver = resolver
        self.report = report
    }

    private static func nowMilliseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    mutating func run() {
        defer {
            events.close()
            evaluator.socket.close()
            _ = close(stopDescriptor)
        }
        evaluate()
        while true {
            var descriptors = [
                pollfd(fd: events.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, debouncer.pollTimeout(at: Self.nowMilliseconds()))
            if ready < 0 && errno != EINTR { return }
            if descriptors[1].revents != 0 { return }
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                guard drainEvents() else { return }
                debouncer.record(at: Self.nowMilliseconds())
            } else if descriptors[0].revents != 0 {
                return  // POLLERR / POLLNVAL without data: the socket is unusable.
            }
            if debouncer.takeDue(at: Self.nowMilliseconds()) { evaluate() }
        }
    }

    /// Reads every queued event. Their content does not matter (any link, address or route change
    /// can change the answer), so they are only checked to be netlink messages. `false` on a
    /// fatal socket error.
    private func drainEvents() -> Bool {
        while true {
            do throws(NetlinkSocketError) {
                let datagram = try events.receive(nonBlocking: true)
                _ = try? NetlinkMessage.parseAll(datagram)  // malformed datagrams are ignored
            } catch .system(let code) where code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
                return true
            } catch .system(ENOBUFS) {
                continue  // events were dropped; the coming evaluation covers them
            } catch {
                return false
            }
        }
    }

    private mutating func evaluate() {
        switch target {
        case .anyNetwork:
            report(evaluator.status(for: RouteEvaluator.generalProbes))
        case .address(let address):
            report(evaluator.status(for: RouteEvaluator.probes(for: address)))
        case .domain(let host):
            // Answer from the last known addresses first, so a slow resolver never delays the
            // status, then again with a fresh resolution.
            if !resolvedAddresses.isEmpty { report(evaluator.status(for: resolvedAddresses)) }
            let fresh = resolver.resolve(host)
            if !fresh.isEmpty { resolvedAddresses = fresh }
            report(resolvedAddresses.isEmpty ? .notReachable : evaluator.status(for: resolvedAddresses))
        }
    }
}
#endif
