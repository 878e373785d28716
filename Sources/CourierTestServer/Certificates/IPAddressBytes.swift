#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts textual IP addresses to the network-order bytes an `iPAddress` SAN holds.
enum IPAddressBytes {
    /// The 4 bytes of an IPv4 address or the 16 bytes of an IPv6 address; nil when `text` is neither.
    static func parse(_ text: String) -> [UInt8]? {
        var ipv4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &ipv4) == 1 { return ipv4 }
        var ipv6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, text, &ipv6) == 1 { return ipv6 }
        return nil
    }
}
