import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// Builds X.509 certificates for tests: certificate authorities, TLS server certificates and TLS client certificates.
///
/// Every certificate carries the extensions a real one would: basic constraints, key usage, extended key usage
/// (end-entity certificates), subject alternative names (server certificates), and subject and authority key identifiers.
/// Validity defaults to one hour in the past until one day in the future. Serial numbers are random.
public enum CertificateFactory {
    /// Creates a self-signed root certificate authority (basic constraints CA, key usage keyCertSign + cRLSign).
    /// - Parameters:
    ///   - commonName: the subject's CN (subject and issuer are the same).
    ///   - key: the kind of key to generate; defaults to `.p256`.
    ///   - notBefore: start of validity; defaults to one hour ago.
    ///   - notAfter: end of validity; defaults to one day from now.
    public static func makeRoot(
        commonName: String,
        key: TestKeyKind = .p256,
        notBefore: Date = Date().addingTimeInterval(-3600),
        notAfter: Date = Date().addingTimeInterval(86_400)
    ) throws -> IssuedCertificate {
        try issue(
            commonName: commonName,
            role: .certificateAuthority,
            subjectKey: key.makePrivateKey(),
            issuer: nil,
            validity: notBefore...notAfter
        )
    }

    /// Creates an intermediate certificate authority signed by `issuer`.
    /// - Parameters:
    ///   - commonName: the subject's CN.
    ///   - issuer: the certificate authority that signs it (a root or another intermediate).
    ///   - key: the kind of key to generate; defaults to `.p256`.
    ///   - notBefore: start of validity; defaults to one hour ago.
    ///   - notAfter: end of validity; defaults to one day from now.
    public static func makeIntermediate(
        commonName: String,
        issuer: IssuedCertificate,
        key: TestKeyKind = .p256,
        notBefore: Date = Date().addingTimeInterval(-3600),
        notAfter: Date = Date().addingTimeInterval(86_400)
    ) throws -> IssuedCertificate {
        try issue(
            commonName: commonName,
            role: .certificateAuthority,
            subjectKey: key.makePrivateKey(),
            issuer: issuer,
            validity: notBefore...notAfter
        )
    }

    /// Creates a TLS server certificate (extended key usage serverAuth) naming `dnsNames` and `ipAddresses`.
    /// - Parameters:
    ///   - commonName: the subject's CN (informational; hostname checks use the SAN only).
    ///   - dnsNames: DNS SAN entries, wildcards such as `*.example.com` allowed.
    ///   - ipAddresses: IP SAN entries as text, IPv4 (`127.0.0.1`) or IPv6 (`::1`).
    ///   - issuer: the signing authority; `nil` makes a self-signed certificate (which then also carries keyCertSign
    ///     so TLS stacks accept it as its own trust anchor).
    ///   - key: the kind of key to generate when `reuseKey` is nil; defaults to `.p256`.
    ///   - notBefore: start of validity; defaults to one hour ago.
    ///   - notAfter: end of validity; defaults to one day from now.
    ///   - reuseKey: an existing private key to certify instead of generating one, to re-issue a certificate for the
    ///     same key; defaults to nil.
    /// - Throws: `CertificateFactoryError.invalidIPAddress` when an entry of `ipAddresses` is not an IP address.
    public static func makeLeaf(
        commonName: String,
        dnsNames: [String],
        ipAddresses: [String] = [],
        issuer: IssuedCertificate?,
        key: TestKeyKind = .p256,
        notBefore: Date = Date().addingTimeInterval(-3600),
        notAfter: Date = Date().addingTimeInterval(86_400),
        reuseKey: Certificate.PrivateKey? = nil
    ) throws -> IssuedCertificate {
        try issue(
            commonName: commonName,
            role: .server(alternativeNames: subjectAlternativeNames(dnsNames: dnsNames, ipAddresses: ipAddresses)),
            subjectKey: reuseKey ?? key.makePrivateKey(),
            issuer: issuer,
            validity: notBefore...notAfter
        )
    }

    /// Creates a TLS client certificate for mutual TLS (extended key usage clientAuth, no SAN).
    /// - Parameters:
    ///   - commonName: the subject's CN, which identifies the client.
    ///   - issuer: the signing authority; `nil` makes a self-signed certificate.
    ///   - key: the kind of key to generate when `reuseKey` is nil; defaults to `.p256`.
    ///   - notBefore: start of validity; defaults to one hour ago.
    ///   - notAfter: end of validity; defaults to one day from now.
    ///   - reuseKey: an existing private key to certify instead of generating one; defaults to nil.
    public static func makeClientCertificate(
        commonName: String,
        issuer: IssuedCertificate?,
        key: TestKeyKind = .p256,
        notBefore: Date = Date().addingTimeInterval(-3600),
        notAfter: Date = Date().addingTimeInterval(86_400),
        reuseKey: Certificate.PrivateKey? = nil
    ) throws -> IssuedCertificate {
        try issue(
            commonName: commonName,
            role: .client,
            subjectKey: reuseKey ?? key.makePrivateKey(),
            issuer: issuer,
            validity: notBefore...notAfter
        )
    }

    // MARK: - Building

    /// What a certificate is for; decides its extensions.
    private enum Role {
        case certificateAuthority
        case server(alternativeNames: [GeneralName])
        case client
    }

    private static func issue(
        commonName: String,
        role: Role,
        subjectKey: Certificate.PrivateKey,
        issuer: IssuedCertificate?,
        validity: ClosedRange<Date>
    ) throws -> IssuedCertificate {
        let subjectName = try DistinguishedName { CommonName(commonName) }
        let subjectPublicKey = subjectKey.publicKey
        let signingKey = issuer?.privateKey ?? subjectKey
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: subjectPublicKey,
            notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound,
            issuer: issuer?.certificate.subject ?? subjectName,
            subject: subjectName,
            extensions: extensions(
                for: role,
                subjectPublicKey: subjectPublicKey,
                issuerPublicKey: issuer?.certificate.publicKey ?? subjectPublicKey,
                isSelfSigned: issuer == nil
            ),
            issuerPrivateKey: signingKey
        )
        return IssuedCertificate(certificate: certificate, privateKey: subjectKey)
    }

    private static func extensions(
        for role: Role,
        subjectPublicKey: Certificate.PublicKey,
        issuerPublicKey: Certificate.PublicKey,
        isSelfSigned: Bool
    ) throws -> Certificate.Extensions {
        var extensions: [Certificate.Extension]
        switch role {
        case .certificateAuthority:
            extensions = [
                try Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)).makeCertificateExtension(),
                try Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true)).makeCertificateExtension(),
            ]
        case .server(let alternativeNames):
            extensions = try endEntityExtensions(usage: .serverAuth, subjectPublicKey: subjectPublicKey, isSelfSigned: isSelfSigned)
            if !alternativeNames.isEmpty {
                extensions.append(try SubjectAlternativeNames(alternativeNames).makeCertificateExtension())
            }
        case .client:
            extensions = try endEntityExtensions(usage: .clientAuth, subjectPublicKey: subjectPublicKey, isSelfSigned: isSelfSigned)
        }
        let authorityKeyIdentifier = SubjectKeyIdentifier(hash: issuerPublicKey).keyIdentifier
        extensions.append(try SubjectKeyIdentifier(hash: subjectPublicKey).makeCertificateExtension())
        extensions.append(try AuthorityKeyIdentifier(keyIdentifier: authorityKeyIdentifier).makeCertificateExtension())
        return try Certificate.Extensions(extensions)
    }

    /// Basic constraints (not a CA), key usage and extended key usage of a server or client certificate.
    private static func endEntityExtensions(
        usage: ExtendedKeyUsage.Usage,
        subjectPublicKey: Certificate.PublicKey,
        isSelfSigned: Bool
    ) throws -> [Certificate.Extension] {
        let keyUsage = KeyUsage(
            digitalSignature: true,
            keyEncipherment: _RSA.Signing.PublicKey(subjectPublicKey) != nil,
            keyCertSign: isSelfSigned
        )
        return [
            try Critical(BasicConstraints.notCertificateAuthority).makeCertificateExtension(),
            try Critical(keyUsage).makeCertificateExtension(),
            try ExtendedKeyUsage([usage]).makeCertificateExtension(),
        ]
    }

    private static func subjectAlternativeNames(dnsNames: [String], ipAddresses: [String]) throws -> [GeneralName] {
        let dns = dnsNames.map { GeneralName.dnsName($0) }
        let ips = try ipAddresses.map { text in
            guard let bytes = IPAddressBytes.parse(text) else { throw CertificateFactoryError.invalidIPAddress(text) }
            return GeneralName.ipAddress(ASN1OctetString(contentBytes: bytes[...]))
        }
        return dns + ips
    }
}
