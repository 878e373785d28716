#if canImport(SystemConfiguration) && !os(Linux) && Reachability  // the Reachability trait (a default one)
import Foundation
import SystemConfiguration
import Synchronization

/// The Apple-platform monitor: `SCNetworkReachability` scheduled on a private queue.
///
/// `@unchecked Sendable`: the reachability reference is set once in `init` and afterwards only
/// passed to SystemConfiguration functions, which may be called from any thread; the callback
/// slot is behind a `Mutex`.
final class SystemConfigurationMonitor: ReachabilityMonitor, @unchecked Sendable {
    private let reachability: SCNetworkReachability?
    private let queue = DispatchQueue(label: "Courier.reachability")
    private let report = Mutex<(@Sendable (NetworkReachabilityStatus) -> Void)?>(nil)

    init(target: ReachabilityTarget) {
        let address: ReachabilityAddress
        switch target {
        case .domain(let host):
            reachability = SCNetworkReachabilityCreateWithName(nil, host)
            return
        case .address(let specific):
            address = specific
        case .anyNetwork:
            address = ReachabilityAddress(sockaddrIn: in_addr())
        }
        reachability = Self.socketAddress(address).withUnsafeBytes { raw in
            raw.baseAddress.flatMap { SCNetworkReachabilityCreateWithAddress(nil, $0.assumingMemoryBound(to: sockaddr.self)) }
        }
    }

    deinit { stop() }

    private static func socketAddress(_ address: ReachabilityAddress) -> [UInt8] {
        switch address.family {
        case .v4:
            var value = sockaddr_in()
            value.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            value.sin_family = sa_family_t(AF_INET)
            withUnsafeMutableBytes(of: &value.sin_addr) { $0.copyBytes(from: address.bytes) }
            return withUnsafeBytes(of: value) { Array($0) }
        case .v6:
            var value = sockaddr_in6()
            value.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            value.sin6_family = sa_family_t(AF_INET6)
            withUnsafeMutableBytes(of: &value.sin6_addr) { $0.copyBytes(from: address.bytes) }
            return withUnsafeBytes(of: value) { Array($0) }
        }
    }

    static func status(_ flags: SCNetworkReachabilityFlags) -> NetworkReachabilityStatus {
        guard flags.contains(.reachable) else { return .notReachable }
        let needsUser = flags.contains(.connectionRequired) && !flags.contains(.connectionOnTraffic) && !flags.contains(.connectionOnDemand)
        if needsUser || flags.contains(.interventionRequired) { return .notReachable }
        #if os(iOS)
        if flags.contains(.isWWAN) { return .reachableViaWWAN }
        #endif
        return .reachableViaWiFi
    }

    func start(reporting report: @escaping @Sendable (NetworkReachabilityStatus) -> Void) {
        guard let reachability else { return report(.notReachable) }
        let alreadyRunning = self.report.withLock { current -> Bool in
            if current != nil { return true }
            current = report
            return false
        }
        guard !alreadyRunning else { return }
        var context = SCNetworkReachabilityContext(
            version: 0, info: Unmanaged.passUnretained(self).toOpaque(), retain: nil, release: nil, copyDescription: nil)
        SCNetworkReachabilitySetCallback(reachability, { _, flags, info in
            guard let info else { return }
            let monitor = Unmanaged<SystemConfigurationMonitor>.fromOpaque(info).takeUnretainedValue()
            monitor.report.withLock { $0 }?(SystemConfigurationMonitor.status(flags))
        }, &context)
        SCNetworkReachabilitySetDispatchQueue(reachability, queue)
        queue.async { [weak self] in
            var flags = SCNetworkReachabilityFlags()
            if SCNetworkReachabilityGetFlags(reachability, &flags) { self?.report.withLock { $0 }?(Self.status(flags)) }
        }
    }

    func stop() {
        guard report.withLock({ current in defer { current = nil }; return current != nil }), let reachability else { return }
        SCNetworkReachabilitySetCallback(reachability, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachability, nil)
    }
}
#endif
