import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `-u user:password` option as the credential an exchange answers Basic and Digest challenges with.
enum CredentialOption {
    /// Splits at the first colon (the password may hold more); without a colon, asks for the password on the
    /// terminal.
    /// - Throws: ``CLIFailure`` (usage) when there is no user, or no password and no terminal to ask on.
    static func credential(parsing text: String) throws -> URLCredential {
        guard !text.isEmpty, !text.hasPrefix(":") else {
            throw CLIFailure.usage("bad -u value: write it as user:password")
        }
        guard let colon = text.firstIndex(of: ":") else {
            guard let password = PasswordPrompt.ask("courier: password for \(text): ") else {
                throw CLIFailure.usage("-u \(text) has no password and there is no terminal to ask for it on: write it as user:password")
            }
            return URLCredential(user: text, password: password, persistence: .forSession)
        }
        return URLCredential(
            user: String(text[..<colon]),
            password: String(text[text.index(after: colon)...]),
            persistence: .forSession
        )
    }
}
