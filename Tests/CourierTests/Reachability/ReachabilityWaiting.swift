#if os(Linux)
@testable import Courier
import Foundation
import Glibc

extension NetworkReachabilityManager {
    /// A manager watching the network namespace of `fixture`.
    convenience init(_ target: String, in fixture: NetworkNamespaceFixture, resolver: ReachabilityHostResolver = .system) {
        let parsed = ReachabilityAddress(target).map(ReachabilityTarget.address) ?? .domain(target)
        self.init(target: parsed, resolver: resolver, namespacePath: fixture.path)
    }

    /// Waits (checking every 2 ms) until the status is `expected`; returns how long that took,
    /// or nil after `timeout`.
    func waitForStatus(_ expected: NetworkReachabilityStatus, timeout: Duration = .seconds(3)) async -> Duration? {
        let start = ContinuousClock.now
        guard await eventually(timeout: timeout, until: { self.networkReachabilityStatus == expected }) else { return nil }
        return ContinuousClock.now - start
    }
}

/// The descriptors of this process, for leak checks.
enum ReachabilityDescriptors {
    /// Open file descriptors of this process (the entries of /proc/self/fd).
    static func all() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }
    }

    /// How many of this process's descriptors are netlink sockets. Unlike the total, this does
    /// not move with other suites running in parallel (HTTP tests open TCP sockets, not netlink).
    static func netlinkSocketCount() -> Int {
        all().filter { descriptor in
            var domain: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 && domain == 16  // AF_NETLINK
        }.count
    }
}
#endif
