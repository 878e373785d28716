#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw IPv4 or IPv6 address, in network byte order. Internal value type shared by the
/// reachability target, the resolver and the netlink route queries.
struct ReachabilityAddress: Sendable, Hashable, CustomStringConvertible {
    enum Family: Sendable, Hashable {
        case v4, v6

        /// The `AF_*` value of the family.
        var addressFamily: Int32 { self == .v4 ? Int32(AF_INET) : Int32(AF_INET6) }
        /// Address length in bytes.
        var byteCount: Int { self == .v4 ? 4 : 16 }
    }

    let family: Family
    /// 4 or 16 bytes, network byte order.
    let bytes: [UInt8]

    /// Returns nil unless `bytes` has the length of `family`.
    init?(family: Family, bytes: [UInt8]) {
        guard bytes.count == family.byteCount else { return nil }
        self.family = family
        self.bytes = bytes
    }

    /// Parses an IPv4 dotted quad or an IPv6 literal (no brackets, no zone). Nil for anything else.
    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(sockaddrIn: v4)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(sockaddrIn6: v6)
            return
        }
        return nil
    }

    init(sockaddrIn address: in_addr) {
        family = .v4
        bytes = withUnsafeBytes(of: address) { Array($0) }
    }

    init(sockaddrIn6 address: in6_addr) {
        family = .v6
        bytes = withUnsafeBytes(of: address) { Array($0) }
    }

    /// `true` for `0.0.0.0` and `::`, which stand for "any route at all".
    var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family.addressFamily, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
