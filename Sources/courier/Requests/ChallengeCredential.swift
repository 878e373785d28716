import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `-u`'s credential, or `--netrc`'s for the request's host, as an answer to authentication challenges: only from
/// the origin of the command's own request (never a redirect target's), only the first time (a refused credential is
/// not sent again), and with `--auth-type digest` only to Digest challenges, so that the password never goes out
/// Base64-encoded in a Basic answer the user did not ask for.
struct ChallengeCredential: Sendable {
    /// Where the credential comes from.
    enum Source: Sendable {
        /// `-u` (or a session's): one credential, whatever the host.
        case given(URLCredential)
        /// A netrc file: the entry for the request's host (or its `default`).
        case netrc(NetrcFile)
    }

    let source: Source
    /// The one scheme answered (lower-cased, as ``AuthenticationScheme/name``), or `nil` for Basic and Digest alike.
    let onlyScheme: String?

    /// The credential a request to `url` would answer with, or `nil` when the netrc file has none for its host.
    func credential(for url: URL?) -> URLCredential? {
        switch source {
        case .given(let credential): return credential
        case .netrc(let file): return url?.host.flatMap(file.credential(forHost:))
        }
    }

    /// The answer to `challenge` for a request first sent to `originalURL`.
    func answer(_ challenge: AuthenticationChallenge, originalURL: URL?) -> AuthenticationDisposition {
        guard challenge.serverTrust == nil, challenge.previousFailureCount == 0, let url = originalURL,
              let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased()
        else { return .performDefaultHandling }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let space = challenge.protectionSpace
        guard space.scheme.lowercased() == scheme, space.host.lowercased() == host, space.port == port else {
            return .performDefaultHandling
        }
        guard let credential = credential(for: url) else { return .performDefaultHandling }
        if let onlyScheme, challenge.scheme.name != onlyScheme {
            return .continueWithoutCredential
        }
        return .useCredential(credential)
    }
}
