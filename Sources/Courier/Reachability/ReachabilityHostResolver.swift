#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into addresses. Injectable so tests never depend on DNS.
struct ReachabilityHostResolver: Sendable {
    let resolve: @Sendable (String) -> [ReachabilityAddress]

    /// Resolution through `getaddrinfo` (so `/etc/hosts`, then DNS, as the system is configured).
    /// Duplicates are removed; order is the resolver's.
    static let system = ReachabilityHostResolver { host in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var found: [ReachabilityAddress] = []
        var cursor = list
        while let entry = cursor?.pointee {
            cursor = entry.ai_next
            guard let sockaddrPointer = entry.ai_addr else { continue }
            let address: ReachabilityAddress?
            switch entry.ai_family {
            case AF_INET:
                address = sockaddrPointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    ReachabilityAddress(sockaddrIn: $0.pointee.sin_addr)
                }
            case AF_INET6:
                address = sockaddrPointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    ReachabilityAddress(sockaddrIn6: $0.pointee.sin6_addr)
                }
            default:
                address = nil
            }
            if let address, !found.contains(address) { found.append(address) }
        }
        return found
    }
}
