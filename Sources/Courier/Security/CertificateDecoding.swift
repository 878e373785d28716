import Foundation
import SwiftASN1
import X509

/// Turns the bytes of certificate files and pins into parsed certificates; never traps on malformed input.
enum CertificateDecoding {
    /// The certificate in `bytes` when they are one DER-encoded X.509 certificate.
    static func certificate(fromDER bytes: Data) throws -> Certificate {
        try Certificate(derEncoded: Array(bytes))
    }

    /// Every certificate in `bytes`: a single DER certificate, or all `CERTIFICATE` blocks of a PEM text.
    /// Empty when the bytes are neither.
    static func certificates(fromDERorPEM bytes: Data) -> [Certificate] {
        if let certificate = try? certificate(fromDER: bytes) {
            return [certificate]
        }
        guard let text = String(data: bytes, encoding: .utf8),
            let documents = try? PEMDocument.parseMultiple(pemString: text)
        else {
            return []
        }
        return documents.compactMap { document in
            guard document.discriminator == "CERTIFICATE" else { return nil }
            return try? Certificate(pemDocument: document)
        }
    }

    /// The DER encoding of `certificate`.
    static func derBytes(of certificate: Certificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    /// The DER encoding of the SubjectPublicKeyInfo of `certificate` (algorithm identifier and key).
    static func subjectPublicKeyInfo(of certificate: Certificate) throws -> Data {
        try subjectPublicKeyInfo(of: certificate.publicKey)
    }

    /// The DER encoding of `key` as a SubjectPublicKeyInfo (algorithm identifier and key).
    static func subjectPublicKeyInfo(of key: Certificate.PublicKey) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(key)
        return Data(serializer.serializedBytes)
    }

    /// Every public key in `bytes`: one DER SubjectPublicKeyInfo, or all `PUBLIC KEY` blocks of a PEM text.
    /// Empty when the bytes are neither.
    static func publicKeys(fromDERorPEM bytes: Data) -> [Certificate.PublicKey] {
        if let key = try? Certificate.PublicKey(derEncoded: Array(bytes)) {
            return [key]
        }
        guard let text = String(data: bytes, encoding: .utf8),
            let documents = try? PEMDocument.parseMultiple(pemString: text)
        else {
            return []
        }
        return documents.compactMap { document in
            guard document.discriminator == "PUBLIC KEY" else { return nil }
            return try? Certificate.PublicKey(derEncoded: document.derBytes)
        }
    }
}
