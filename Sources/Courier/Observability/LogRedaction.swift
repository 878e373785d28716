import Foundation

/// What Courier's log events leave out: credentials in URLs, secret-looking query values, and the values of the
/// header fields that carry credentials or session state.
///
/// URLs are rewritten as text, not through `URLComponents`' setters, which trap on characters a parsed URL may hold.
enum LogRedaction {
    /// Header fields whose values are never logged (compared without regard to case).
    static let secretHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Query parameters whose values are replaced, by a part of their name (compared without regard to case).
    static let secretQueryNameParts = ["token", "key", "secret", "password", "passwd", "auth", "sig", "code", "session"]

    /// The replacement of a redacted value.
    static let mask = "REDACTED"

    /// `url` without its user and password, with the values of secret-looking query parameters masked.
    static func loggable(_ url: URL?) -> String {
        guard let text = url?.absoluteString else { return "(no URL)" }
        var result = withoutUserInfo(text)
        guard let question = result.firstIndex(of: "?") else { return result }
        let queryEnd = result[question...].firstIndex(of: "#") ?? result.endIndex
        let query = result[result.index(after: question)..<queryEnd]
        let masked = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals].lowercased()
            guard secretQueryNameParts.contains(where: name.contains) else { return String(pair) }
            return pair[...equals] + mask
        }.joined(separator: "&")
        result.replaceSubrange(result.index(after: question)..<queryEnd, with: masked)
        return result
    }

    /// `text` without the `user:password@` of its authority.
    private static func withoutUserInfo(_ text: String) -> String {
        guard let separator = text.range(of: "://") else { return text }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<separator.upperBound]) + String(rest[rest.index(after: at)...])
    }

    /// `error`'s message for a log event: a `URLError`'s description with its failing URL made loggable
    /// (Courier's descriptions end with the URL, credentials and query included), anything else as it describes itself.
    static func loggable(_ error: any Error) -> String {
        guard let urlError = error as? URLError else { return "\(error)" }
        let message = urlError.localizedDescription
        guard let url = urlError.failingURL else { return message }
        return message.replacingOccurrences(of: url.absoluteString, with: loggable(url))
    }

    /// An error as a span records it: exporters write out the recorded error's description, so it is the
    /// `loggable` message of the error, never the error itself (a `URLError` describes its URL whole).
    struct RedactedError: Error, CustomStringConvertible {
        let description: String

        init(_ error: any Error) { description = LogRedaction.loggable(error) }
    }

    /// `value`, or the mask for a secret header field.
    static func loggable(header name: String, value: String) -> String {
        secretHeaderNames.contains(name.lowercased()) ? mask : value
    }
}
