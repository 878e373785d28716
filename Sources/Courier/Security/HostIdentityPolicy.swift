import SwiftASN1
import X509

/// Checks that the leaf certificate names the host, by subject alternative names only.
///
/// DNS names match per RFC 6125 through swift-certificates' `ServerIdentityPolicy` (a wildcard covers exactly one
/// left-most label); IP addresses match `iPAddress` entries. Unlike `ServerIdentityPolicy` alone, a leaf without a
/// DNS or IP SAN is refused instead of falling back to its common name.
struct HostIdentityPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.subjectAlternativeName]

    private let host: String
    private var serverIdentity: ServerIdentityPolicy

    /// - Parameter host: a DNS name or an IP address; brackets around an IPv6 address (`[::1]`) are removed.
    init(host: String) {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.host = bare
        // swift-certificates decides which form applies: the IP form matches only when `bare` parses as an address.
        self.serverIdentity = ServerIdentityPolicy(serverHostname: bare, serverIP: bare)
    }

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let host = self.host
        let names: SubjectAlternativeNames
        do {
            names = try chain.leaf.extensions.subjectAlternativeNames ?? SubjectAlternativeNames()
        } catch {
            return .failsToMeetPolicy(reason: "the certificate's subject alternative names cannot be parsed")
        }
        let hasMatchableName = names.contains { name in
            switch name {
            case .dnsName, .ipAddress: return true
            default: return false
            }
        }
        guard hasMatchableName else {
            return .failsToMeetPolicy(
                reason: "the certificate has no DNS or IP subject alternative name for \(host) (the common name is not used)"
            )
        }
        if case .failsToMeetPolicy = serverIdentity.chainMeetsPolicyRequirements(chain: chain) {
            return .failsToMeetPolicy(reason: "the certificate is not valid for \(host) (it names \(Self.readable(names)))")
        }
        return .meetsPolicy
    }

    /// The DNS names and IP addresses of `names`, as a person writes them: "localhost, 127.0.0.1".
    static func readable(_ names: SubjectAlternativeNames) -> String {
        let written = names.compactMap { name -> String? in
            switch name {
            case .dnsName(let dns): return dns
            case .ipAddress(let octets): return readableAddress(Array(octets.bytes))
            default: return nil
            }
        }
        return written.isEmpty ? "no DNS name or IP address" : written.joined(separator: ", ")
    }

    /// Four bytes as a dotted IPv4 address, sixteen as eight hexadecimal groups; anything else in hex.
    private static func readableAddress(_ bytes: [UInt8]) -> String {
        switch bytes.count {
        case 4: return bytes.map(String.init).joined(separator: ".")
        case 16:
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
        default: return bytes.map { String($0, radix: 16) }.joined()
        }
    }
}
