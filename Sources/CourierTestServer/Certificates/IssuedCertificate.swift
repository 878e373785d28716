import Foundation
import X509
import SwiftASN1

/// A test certificate together with the private key of its subject.
public struct IssuedCertificate: Sendable {
    /// The certificate itself.
    public let certificate: Certificate
    /// The private key matching `certificate.publicKey`; it signs certificates issued by this one.
    public let privateKey: Certificate.PrivateKey

    /// Pairs a certificate with its subject's private key.
    public init(certificate: Certificate, privateKey: Certificate.PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// The certificate in DER encoding (the content of a `.cer` file).
    ///
    /// Empty only if serialization fails, which cannot happen for a certificate this factory built.
    public var derBytes: Data {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate)) != nil else { return Data() }
        return Data(serializer.serializedBytes)
    }

    /// The certificate as a PEM document (`-----BEGIN CERTIFICATE-----`).
    ///
    /// Empty only if serialization fails, which cannot happen for a certificate this factory built.
    public var pemCertificate: String {
        (try? certificate.serializeAsPEM().pemString) ?? ""
    }

    /// The private key as a PEM document: PKCS#8 (`PRIVATE KEY`) for P-256, PKCS#1 (`RSA PRIVATE KEY`) for RSA.
    ///
    /// Empty only if serialization fails, which cannot happen for a key this factory generated.
    public var pemPrivateKey: String {
        (try? privateKey.serializeAsPEM().pemString) ?? ""
    }
}
