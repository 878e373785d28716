import Crypto
import Foundation

/// A hash algorithm of HTTP Digest authentication (RFC 7616 §3.3), optionally in `-sess` form.
struct DigestAlgorithm: Equatable {
    enum Hash: String, CaseIterable {
        case md5 = "MD5"
        case sha256 = "SHA-256"
        case sha512 = "SHA-512"
    }

    let hash: Hash
    /// The `-sess` variant: HA1 also covers the nonce and cnonce.
    let session: Bool

    /// Parses names such as `MD5`, `sha-256`, `SHA-256-sess` (case-insensitive).
    init?(name: String) {
        var base = name.uppercased()
        session = base.hasSuffix("-SESS")
        if session { base.removeLast(5) }
        guard let hash = Hash(rawValue: base) else { return nil }
        self.hash = hash
    }

    /// The name as sent in challenges.
    var name: String { hash.rawValue + (session ? "-sess" : "") }

    /// Lower-case hex digest of the UTF-8 bytes of `text`.
    func digest(_ text: String) -> String {
        digest(bytes: Data(text.utf8))
    }

    /// Lower-case hex digest of `bytes`.
    func digest(bytes: Data) -> String {
        switch hash {
        case .md5: Insecure.MD5.hash(data: bytes).hexString
        case .sha256: SHA256.hash(data: bytes).hexString
        case .sha512: SHA512.hash(data: bytes).hexString
        }
    }
}
