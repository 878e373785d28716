import Foundation
import NIOSSL

/// The system's trust roots, in the form that costs each TLS context the least.
///
/// SwiftNIO SSL's `.default` on Linux loads the whole system bundle (`/etc/ssl/certs/ca-certificates.crt`, about 140
/// certificates) into every context it makes: about 1 MB of memory and a few milliseconds of parsing each. Courier
/// makes a context per HTTPS host (an engine client each, see `EngineClientPool`), and AsyncHTTPClient 1.37 keeps a
/// shut-down client — its context with it — until its idle connections' timers have run out
/// (``EngineTransport/Configuration/idleConnectionTimeout``, default 60 s): a crawler meeting 60 new hosts a
/// second held about 3.6 GB. The same roots as a hashed directory (`/etc/ssl/certs`, which `update-ca-certificates`
/// keeps in step with the bundle on Debian, Ubuntu, Alpine and Arch) are looked up lazily by BoringSSL: a context
/// reads only the issuer a handshake needs (about 35 KB per retained client, measured). Where the directory is missing
/// or has no hashed names (Fedora and RHEL ship only the bundle), `.default` it stays. Not a hand-written loader: the
/// lookup is BoringSSL's own (`SSL_CTX_load_verify_locations` with a directory).
enum SystemTrustRoots {
    /// The system's roots for a TLS configuration: the hashed directory where there is one, otherwise `.default`.
    static let roots: NIOSSLTrustRoots = {
        #if os(Linux)
        if let directory = hashedDirectory(at: "/etc/ssl/certs") { return .file(directory) }
        #endif
        return .default
    }()

    /// `path` when it is a directory holding certificates under OpenSSL's hashed names (`1a2b3c4d.0`).
    static func hashedDirectory(at path: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
        return names.contains(where: isHashedName) ? path : nil
    }

    /// Whether `name` is eight lower-case hex digits, a dot and a decimal number, as `c_rehash` names a certificate.
    static func isHashedName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 8, !parts[1].isEmpty else { return false }
        return parts[0].allSatisfy { $0.isHexDigit && !$0.isUppercase } && parts[1].allSatisfy(\.isASCII) && parts[1].allSatisfy(\.isNumber)
    }
}
