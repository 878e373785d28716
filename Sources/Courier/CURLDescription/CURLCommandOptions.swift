import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a curl command line needs besides the `URLRequest` to send the request the way Courier would:
/// the credential, redirects, where the body comes from and the response goes, and the TLS settings.
///
/// Used by `URLRequest.cURLDescription(options:)`. Every property defaults to curl's own
/// behaviour, so `CURLCommandOptions()` adds no option. Not an AFNetworking feature (Alamofire's
/// `cURLDescription` is the model).
public struct CURLCommandOptions: Sendable {
    /// The credential for an authentication challenge: `--anyauth -u user:password`, so that curl, like an
    /// ``Exchange``, sends it only when the server asks and picks Basic or Digest from the challenge.
    /// Default `nil`.
    public var credential: URLCredential?
    /// Whether redirects are followed (`-L`). Default `false`, curl's default.
    public var followsRedirects = false
    /// The most redirects followed (`--max-redirs N`), written only when ``followsRedirects`` is true.
    /// Default `nil`: curl's own limit.
    public var maximumRedirects: Int?
    /// The file the request body is sent from: `--data-binary @path` replaces the body written inline.
    /// Default `nil`: the request's `httpBody` (or multipart form) is written out.
    public var bodyFile: URL?
    /// Where the response body is written (`-o path`). Default `nil`: standard output.
    public var outputFile: URL?
    /// Whether any server certificate is accepted (`-k`). Default `false`.
    public var allowsInvalidCertificates = false
    /// A PEM or DER file of certificate authorities to trust (`--cacert path`). Default `nil`.
    ///
    /// curl trusts only the authorities in this file, where ``SecurityPolicy/trustedRootCertificates``
    /// adds them to the system's roots.
    public var certificateAuthorityFile: String?
    /// Certificates (DER, or PEM text) whose public keys are pinned: `--pinnedpubkey sha256//…`, one hash
    /// of each SubjectPublicKeyInfo. Default empty. curl has no whole-certificate pinning, so this is also the
    /// closest rendering of ``SSLPinningMode/certificate``.
    public var pinnedPublicKeyCertificates: [Data] = []
    /// Public keys pinned directly (DER SubjectPublicKeyInfo, or PEM `PUBLIC KEY` text), written into the same
    /// `--pinnedpubkey` list. Default empty.
    public var pinnedPublicKeys: [Data] = []
    /// The PEM file of the client certificate chain (`--cert path`). Default `nil`.
    public var clientCertificateFile: String?
    /// The PEM file of the client certificate's private key (`--key path`). Default `nil`.
    public var clientKeyFile: String?
    /// The proxy, as curl takes it (`--proxy url`; an empty string turns the environment's proxies off). Default `nil`.
    public var proxy: String?
    /// The hosts reached without the proxy (`--noproxy list`). Default `nil`.
    public var noProxy: String?
    /// The Unix domain socket to connect to (`--unix-socket path`). Default `nil`.
    public var unixSocketPath: String?

    /// Options that add nothing to the command line.
    public init() {}
}
