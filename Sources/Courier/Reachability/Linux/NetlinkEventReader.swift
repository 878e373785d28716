#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
import Dispatch
import Glibc

/// The loop run by a ``NetlinkReachabilityMonitor``'s thread: waits for kernel events, debounces
/// them, evaluates the target and reports. Owns the two sockets and its end of the stop socket
/// pair, and closes them when it ends (stop signal or fatal socket error).
struct NetlinkEventReader {
    let events: NetlinkSocket
    var evaluator: RouteEvaluator
    let stopDescriptor: Int32
    let target: ReachabilityTarget
    let resolver: ReachabilityHostResolver
    let report: @Sendable (NetworkReachabilityStatus) -> Void
    var debouncer = EventDebouncer()
    var resolvedAddresses: [ReachabilityAddress] = []

    init(events: NetlinkSocket, evaluator: RouteEvaluator, stopDescriptor: Int32, target: ReachabilityTarget,
         resolver: ReachabilityHostResolver, report: @escaping @Sendable (NetworkReachabilityStatus) -> Void) {
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
