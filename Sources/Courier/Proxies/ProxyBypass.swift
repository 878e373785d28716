import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which hosts are reached directly, never through the proxy: the rules of a `no_proxy` list.
///
/// Entries are separated by commas (or spaces), compared without regard to case:
/// - `*` alone bypasses the proxy for every host;
/// - a host name (`example.com`, or `.example.com`) matches that host and every host below it (`api.example.com`),
///   as curl does;
/// - an IP address (`127.0.0.1`, `::1`, `[::1]`) matches that address only, and a CIDR range (`10.0.0.0/8`,
///   `fd00::/8`) every address in it; names are not resolved, so an address rule applies to URLs that use addresses;
/// - any of these may end with `:port` (`example.com:8080`, `[::1]:8080`) to match that port only.
///
/// Hand-written: neither Foundation nor the engine parses `no_proxy` lists (AsyncHTTPClient's proxy setting has no
/// bypass rules at all).
public struct ProxyBypass: Sendable, Hashable {
    private enum Rule: Sendable, Hashable {
        case everything
        case domain(String, port: Int?)
        case addressRange(IPAddressBytes, prefixLength: Int, port: Int?)
    }

    private let rules: [Rule]

    /// No host bypasses the proxy.
    public init() {
        rules = []
    }

    /// The rules of a `no_proxy` list.
    /// - Throws: ``ProxyConfigurationError`` for an entry that is not a host name, an address or a CIDR range, or has
    ///   a bad port or prefix length.
    public init(parsing list: String) throws(ProxyConfigurationError) {
        var rules: [Rule] = []
        let entries = list.split { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" }
        for entry in entries {
            rules.append(try Self.rule(String(entry).lowercased()))
        }
        self.rules = rules
    }

    /// Whether the list is empty.
    public var isEmpty: Bool { rules.isEmpty }

    /// Whether a request to `host` (a name, or an address, IPv6 with or without brackets) on `port` goes direct.
    public func bypassesProxy(host rawHost: String, port: Int) -> Bool {
        guard !rules.isEmpty else { return false }
        var host = rawHost.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        let address = IPAddressBytes(host)
        return rules.contains { rule in
            switch rule {
            case .everything:
                return true
            case .domain(let domain, let rulePort):
                // A name rule applies to names only (as curl's): `0.1` must not match the address 10.0.0.1.
                guard address == nil, rulePort == nil || rulePort == port else { return false }
                return host == domain || host.hasSuffix("." + domain)
            case .addressRange(let network, let prefixLength, let rulePort):
                guard rulePort == nil || rulePort == port, let address else { return false }
                return address.isIn(network, prefixLength: prefixLength)
            }
        }
    }

    private static func rule(_ entry: String) throws(ProxyConfigurationError) -> Rule {
        if entry == "*" { return .everything }
        var text = Substring(entry)
        var port: Int?
        // "[v6]:port", "[v6]", "v4:port", "name:port"; a bare IPv6 address has several colons and no port.
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid(entry) }
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid(entry) }
                port = try portNumber(rest.dropFirst(), entry: entry)
            }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            port = try portNumber(text[text.index(after: colon)...], entry: entry)
            text = text[..<colon]
        }
        if let slash = text.firstIndex(of: "/") {
            guard let network = IPAddressBytes(String(text[..<slash])),
                let prefixLength = Int(text[text.index(after: slash)...]),
                (0...network.bitCount).contains(prefixLength)
            else {
                throw ProxyConfigurationError("The no_proxy entry \(entry.debugDescription) is not a valid CIDR range.")
            }
            return .addressRange(network, prefixLength: prefixLength, port: port)
        }
        if let address = IPAddressBytes(String(text)) {
            return .addressRange(address, prefixLength: address.bitCount, port: port)
        }
        var domain = text
        while domain.hasPrefix(".") { domain = domain.dropFirst() }
        if domain.hasPrefix("*.") { domain = domain.dropFirst(2) }
        if domain.hasSuffix(".") { domain = domain.dropLast() }
        guard !domain.isEmpty, RequestURLCheck.isAcceptableHost(String(domain)) else { throw invalid(entry) }
        return .domain(String(domain), port: port)
    }

    private static func portNumber(_ text: Substring, entry: String) throws(ProxyConfigurationError) -> Int {
        guard text.utf8.count <= 5, let port = Int(text), (1...65535).contains(port) else {
            throw ProxyConfigurationError("The no_proxy entry \(entry.debugDescription) has a port that is not between 1 and 65535.")
        }
        return port
    }

    private static func invalid(_ entry: String) -> ProxyConfigurationError {
        ProxyConfigurationError("The no_proxy entry \(entry.debugDescription) is not a host name, an IP address or a CIDR range.")
    }
}

/// The bytes of an IPv4 (4) or IPv6 (16) address, parsed with `inet_pton`.
struct IPAddressBytes: Sendable, Hashable {
    let bytes: [UInt8]

    var bitCount: Int { bytes.count * 8 }

    /// The address in `text`, or nil when it is not an IPv4 or IPv6 address (a `%zone` is ignored).
    init?(_ text: String) {
        let bare = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// Whether the first `prefixLength` bits equal those of `network` (same address family).
    func isIn(_ network: IPAddressBytes, prefixLength: Int) -> Bool {
        guard bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(bytes, network.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }
}
