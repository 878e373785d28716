import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `-u user:password` option as the credential an exchange answers Basic and Digest challenges with.
enum CredentialOption {
    /// Splits at the first colon (the password may hold more).
    /// - Throws: ``CLIFailure`` (usage) when there is no colon or no user.
    static func credential(parsing text: String) throws -> URLCredential {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw CLIFailure.usage("bad -u value: write it as user:password")
        }
        return URLCredential(
            user: String(text[..<colon]),
            password: String(text[text.index(after: colon)...]),
            persistence: .forSession
        )
    }
}
