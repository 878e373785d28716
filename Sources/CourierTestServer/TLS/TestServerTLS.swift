import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The TLS set-up of a ``TestServer``: which certificate chain it presents, whether it requires
/// client certificates (mutual TLS), and whether it offers HTTP/2.
///
/// ```swift
/// let server = try await TestServer.start(tls: .generated)
/// let expired = try CertificateFactory.makeLeaf(commonName: "localhost", dnsNames: ["localhost"],
///                                               issuer: ca, notAfter: Date(timeIntervalSinceNow: -60))
/// let old = try await TestServer.start(tls: .custom(chain: [expired]))
/// ```
public struct TestServerTLS: Sendable {
    /// The certificate chain and key the server presents.
    public enum Identity: Sendable {
        /// A fresh CA and a leaf it issued for `localhost`, `127.0.0.1` and `::1` (P-256 keys), made at start-up.
        case generated
        /// `chain` (leaf first, then any intermediates) with the leaf's private key `key`.
        case custom(chain: [IssuedCertificate], key: Certificate.PrivateKey)
    }

    /// What the server presents.
    public var identity: Identity
    /// When not empty, the server requires a client certificate issued by one of these authorities.
    public var clientCertificateAuthorities: [Certificate]
    /// Offer HTTP/2 through ALPN (`h2`, then `http/1.1`); when false, only HTTP/1.1.
    public var http2: Bool

    /// - Parameters:
    ///   - identity: what the server presents; a generated chain by default.
    ///   - clientCertificateAuthorities: authorities whose client certificates are required; none by default.
    ///   - http2: offer HTTP/2 through ALPN; true by default.
    public init(identity: Identity = .generated, clientCertificateAuthorities: [Certificate] = [], http2: Bool = true) {
        self.identity = identity
        self.clientCertificateAuthorities = clientCertificateAuthorities
        self.http2 = http2
    }

    /// A generated CA and leaf, HTTP/2 and HTTP/1.1, no client certificates.
    public static var generated: TestServerTLS { TestServerTLS() }

    /// Presents `chain` (leaf first); the key defaults to the leaf's own private key.
    public static func custom(chain: [IssuedCertificate], key: Certificate.PrivateKey? = nil) throws -> TestServerTLS {
        guard let leaf = chain.first else { throw TestServerError.emptyCertificateChain }
        return TestServerTLS(identity: .custom(chain: chain, key: key ?? leaf.privateKey))
    }

    /// A copy that requires client certificates issued by `authorities` (mutual TLS).
    public func requiringClientCertificates(issuedBy authorities: [IssuedCertificate]) -> TestServerTLS {
        var copy = self
        copy.clientCertificateAuthorities = authorities.map(\.certificate)
        return copy
    }
}

/// The certificates a TLS server ended up with, and its NIOSSL configuration.
struct ResolvedTLS {
    let configuration: TLSConfiguration
    let certificateAuthorityDER: Data?
    let leafCertificateDER: Data
    let http2: Bool

    init(_ tls: TestServerTLS) throws {
        let chain: [IssuedCertificate]
        let key: Certificate.PrivateKey
        switch tls.identity {
        case .generated:
            let authority = try CertificateFactory.makeRoot(commonName: "Courier Test CA")
            let leaf = try CertificateFactory.makeLeaf(
                commonName: "localhost",
                dnsNames: ["localhost"],
                ipAddresses: ["127.0.0.1", "::1"],
                issuer: authority
            )
            chain = [leaf]
            key = leaf.privateKey
            certificateAuthorityDER = authority.derBytes
        case .custom(let customChain, let customKey):
            chain = customChain
            key = customKey
            certificateAuthorityDER = nil
        }
        guard let leaf = chain.first else { throw TestServerError.emptyCertificateChain }
        leafCertificateDER = leaf.derBytes
        let certificates = try chain.map { try NIOSSLCertificate(bytes: Array($0.derBytes), format: .der) }
        let privateKey = try NIOSSLPrivateKey(bytes: Array(key.serializeAsPEM().pemString.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) },
            privateKey: .privateKey(privateKey)
        )
        if !tls.clientCertificateAuthorities.isEmpty {
            let roots = try tls.clientCertificateAuthorities.map { certificate in
                try NIOSSLCertificate(bytes: Array(IssuedCertificate.der(certificate)), format: .der)
            }
            configuration.trustRoots = .certificates(roots)
            configuration.certificateVerification = .noHostnameVerification
            configuration.sendCANameList = true
        }
        configuration.applicationProtocols = tls.http2 ? ["h2", "http/1.1"] : ["http/1.1"]
        self.configuration = configuration
        self.http2 = tls.http2
    }
}

extension IssuedCertificate {
    /// DER of any X.509 certificate.
    static func der(_ certificate: Certificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }
}
