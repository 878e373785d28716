import Crypto
import X509
import _CryptoExtras

/// The kind of private key a test certificate is issued with.
public enum TestKeyKind: Sendable, Hashable, CaseIterable {
    /// An ECDSA key on the NIST P-256 curve; certificates it signs use ECDSA with SHA-256.
    case p256
    /// A 2048-bit RSA key; certificates it signs use PKCS#1 v1.5 RSA with SHA-256.
    case rsa2048

    /// Generates a fresh private key of this kind.
    ///
    /// RSA generation takes tens of milliseconds; P-256 is effectively instant.
    /// - Throws: whatever the underlying crypto library throws when key generation fails.
    public func makePrivateKey() throws -> Certificate.PrivateKey {
        switch self {
        case .p256:
            return Certificate.PrivateKey(P256.Signing.PrivateKey())
        case .rsa2048:
            return Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
    }
}
