import Foundation
import Synchronization

/// The transports operations use when none is given: one connection pool per security policy,
/// shared by every operation and manager in the process (a transport per operation would open a
/// pool per request).
enum OperationTransport {
    /// The security policy operations start with: one shared instance of
    /// `SecurityPolicy.default` (no pinning, CA and host name validation), so operations that
    /// keep it share ``shared``.
    static let defaultSecurityPolicy = SecurityPolicy.default

    /// The transport for operations using ``defaultSecurityPolicy``.
    static var shared: any HTTPTransport { transport(for: defaultSecurityPolicy) }

    private struct Key: Hashable {
        let policy: ObjectIdentifier
        let proxy: ProxyConfiguration?
    }

    private static let pools = Mutex<[Key: any HTTPTransport]>([:])

    /// The shared transport enforcing `policy` through `proxy` (default: none), created on first use and kept for
    /// the life of the process (policies are compared by identity, so reuse a policy instance across operations).
    static func transport(for policy: SecurityPolicy, proxy: ProxyConfiguration? = nil) -> any HTTPTransport {
        pools.withLock { pools in
            let key = Key(policy: ObjectIdentifier(policy), proxy: proxy)
            if let existing = pools[key] { return existing }
            var settings = TransportSettings()
            settings.securityPolicy = policy
            settings.proxy = proxy
            let transport = DefaultTransport.make(settings)
            pools[key] = transport
            return transport
        }
    }
}
