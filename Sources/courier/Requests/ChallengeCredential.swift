import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `-u`'s credential as an answer to authentication challenges: only from the origin of the command's own request
/// (never a redirect target's), only the first time (a refused credential is not sent again), and with
/// `--auth-type digest` only to Digest challenges, so that the password never goes out Base64-encoded in a Basic
/// answer the user did not ask for.
struct ChallengeCredential: Sendable {
    let credential: URLCredential
    /// The one scheme answered (lower-cased, as ``AuthenticationScheme/name``), or `nil` for Basic and Digest alike.
    let onlyScheme: String?

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
        if let onlyScheme, challenge.scheme.name != onlyScheme {
            return .continueWithoutCredential
        }
        return .useCredential(credential)
    }
}
