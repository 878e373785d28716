import Foundation
import SwiftASN1
import X509

/// libFuzzer entry point: the input is a certificate or public-key file as a user may hand it to Courier (a pinned
/// certificate, a `--cacert` bundle, a pinned public key): DER, or PEM text with any blocks.
///
/// Checks that `CertificateDecoding` finds certificates and keys without a trap, and that each one it finds
/// re-encodes to DER that parses back to the same certificate or key (so the pins Courier compares are the bytes
/// of what was loaded); a file that is one DER certificate gives exactly that certificate, byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Data(bytes: start, count: count)

    let certificates = CertificateDecoding.certificates(fromDERorPEM: bytes)
    for certificate in certificates {
        guard let der = try? CertificateDecoding.derBytes(of: certificate) else {
            preconditionFailure("a loaded certificate that does not re-encode")
        }
        precondition((try? CertificateDecoding.certificate(fromDER: der)) == certificate, "a certificate that does not survive its DER")
        guard let key = try? CertificateDecoding.subjectPublicKeyInfo(of: certificate) else {
            preconditionFailure("a loaded certificate whose key does not encode")
        }
        precondition((try? Certificate.PublicKey(derEncoded: Array(key))) == certificate.publicKey, "a key that does not survive its DER")
    }
    if let single = try? CertificateDecoding.certificate(fromDER: bytes) {
        precondition(certificates == [single], "a DER certificate file read as \(certificates.count) certificates")
    }

    for key in CertificateDecoding.publicKeys(fromDERorPEM: bytes) {
        guard let der = try? CertificateDecoding.subjectPublicKeyInfo(of: key) else {
            preconditionFailure("a loaded public key that does not re-encode")
        }
        precondition((try? Certificate.PublicKey(derEncoded: Array(der))) == key, "a public key that does not survive its DER")
    }
    return 0
}
