import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monitors whether a host, an address or the network in general can be reached, and over
/// which kind of interface.
///
/// Reachability says whether the system has a usable route, not whether a server answers: a
/// request may still fail while the status is reachable. Use it to explain a failure or to retry
/// when the network comes back, not to decide whether to try.
///
/// On Linux the manager listens to the kernel's link, address and route notifications on a
/// netlink socket and asks the kernel for the route to the target after each burst of them
/// (no polling). On Apple platforms it uses SystemConfiguration's `SCNetworkReachability`. Both come with the
/// package's `Reachability` trait, one of its defaults: a build without it has no network watcher, and every
/// manager's status stays ``NetworkReachabilityStatus/unknown``.
///
/// The status is ``NetworkReachabilityStatus/unknown`` until ``startMonitoring()`` has produced
/// its first answer. Changes are reported on the main queue, to the block set with
/// ``setReachabilityStatusChangeBlock(_:)`` and as a ``Foundation/NSNotification/Name/courierReachabilityDidChange``
/// notification. A released manager stops monitoring and closes its socket.
public final class NetworkReachabilityManager: Sendable {
    /// The `userInfo` key of ``Foundation/NSNotification/Name/courierReachabilityDidChange`` under which the new
    /// ``NetworkReachabilityStatus`` is stored.
    public static let statusUserInfoKey = "CourierReachabilityNotificationStatus"

    /// A manager for the network in general (any default route, IPv4 or IPv6). Not monitoring
    /// until ``startMonitoring()`` is called.
    public static let shared = NetworkReachabilityManager(target: .anyNetwork)

    private struct State: Sendable {
        var status = NetworkReachabilityStatus.unknown
        var changeBlock: (@Sendable (NetworkReachabilityStatus) -> Void)?
    }

    private let state = Mutex(State())
    private let monitor: any ReachabilityMonitor

    /// A manager for a host name, resolved (through `/etc/hosts` and DNS) at every evaluation.
    /// Nil when `domain` is empty or longer than a DNS name can be (253 characters).
    public convenience init?(domain: String) {
        let trimmed = domain.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 253 else { return nil }
        self.init(target: .domain(trimmed))
    }

    /// A manager for an IPv4 socket address (the port is ignored). `0.0.0.0` means the IPv4
    /// network in general.
    public convenience init(address: sockaddr_in) {
        self.init(target: .address(ReachabilityAddress(sockaddrIn: address.sin_addr)))
    }

    /// A manager for an IPv6 socket address (the port is ignored). `::` means the IPv6 network
    /// in general.
    public convenience init(address: sockaddr_in6) {
        self.init(target: .address(ReachabilityAddress(sockaddrIn6: address.sin6_addr)))
    }

    /// A manager for an address written as an IPv4 dotted quad or an IPv6 literal, e.g.
    /// `"10.0.0.1"` or `"fe80::1"`. Nil when `host` is neither (use ``init(domain:)`` for names).
    public convenience init?(host: String) {
        guard let address = ReachabilityAddress(host) else { return nil }
        self.init(target: .address(address))
    }

    /// The designated initializer. `namespacePath` (Linux only, for tests) watches another
    /// network namespace; `resolver` replaces `getaddrinfo` for domain targets.
    init(target: ReachabilityTarget, resolver: ReachabilityHostResolver = .system, namespacePath: String? = nil) {
        #if os(Linux) && Reachability
        monitor = NetlinkReachabilityMonitor(target: target, resolver: resolver, namespacePath: namespacePath)
        #elseif canImport(SystemConfiguration) && Reachability
        monitor = SystemConfigurationMonitor(target: target)
        #else
        monitor = UnavailableReachabilityMonitor()
        #endif
    }

    deinit { monitor.stop() }

    /// The current status. ``NetworkReachabilityStatus/unknown`` before monitoring starts.
    public var networkReachabilityStatus: NetworkReachabilityStatus { state.withLock { $0.status } }

    /// Whether the target is reachable over any interface.
    public var isReachable: Bool { networkReachabilityStatus.isReachable }

    /// Whether the target is reachable over a cellular interface.
    public var isReachableViaWWAN: Bool { networkReachabilityStatus == .reachableViaWWAN }

    /// Whether the target is reachable over a non-cellular interface.
    public var isReachableViaWiFi: Bool { networkReachabilityStatus == .reachableViaWiFi }

    /// A localized description of the current status, e.g. "Reachable via WiFi".
    public var localizedNetworkReachabilityStatusString: String { networkReachabilityStatus.localizedDescription }

    /// Starts watching the system; the first status follows at once. Calling it while
    /// monitoring does nothing. If the system refuses a netlink socket (some sandboxes do), the
    /// status stays ``NetworkReachabilityStatus/unknown`` and a later call tries again.
    public func startMonitoring() {
        monitor.start { [weak self] status in self?.update(status) }
    }

    /// Stops watching. The last status is kept. Calling it while not monitoring does nothing.
    public func stopMonitoring() {
        monitor.stop()
    }

    /// Sets the block called on the main queue with every new status (nil by default; nil
    /// removes it).
    public func setReachabilityStatusChangeBlock(_ block: (@Sendable (NetworkReachabilityStatus) -> Void)?) {
        state.withLock { $0.changeBlock = block }
    }

    private func update(_ status: NetworkReachabilityStatus) {
        var changed = false
        let changeBlock = state.withLock { state -> (@Sendable (NetworkReachabilityStatus) -> Void)? in
            guard state.status != status else { return nil }
            state.status = status
            changed = true
            return state.changeBlock
        }
        guard changed else { return }
        // Weak: a manager released before the main queue gets here reports nothing more, and
        // its socket is not kept open by a pending report.
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            changeBlock?(status)
            NotificationCenter.default.post(
                name: .courierReachabilityDidChange, object: self, userInfo: [Self.statusUserInfoKey: status])
        }
    }
}

extension NetworkReachabilityManager {
    /// The reachability manager of an operation or session manager created with `baseURL`: as the AFNetworking
    /// 2.0 migration guide promises ("a baseURL will provide automatic network reachability change
    /// notifications"), one that watches the base URL's host (an IP literal as an address, a name through name
    /// resolution) and is already monitoring, so ``Foundation/NSNotification/Name/courierReachabilityDidChange``
    /// is posted for it. Without a host: ``shared``, not started.
    static func watching(baseURL: URL?) -> NetworkReachabilityManager {
        guard let host = baseURL?.host, !host.isEmpty,
              let manager = NetworkReachabilityManager(host: host) ?? NetworkReachabilityManager(domain: host)
        else { return .shared }
        manager.startMonitoring()
        return manager
    }
}
