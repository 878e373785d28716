import Foundation
import HTTPTypes

/// The absolute URL of a request: the server URL, with the request's scheme and authority in place of its own when
/// the request has them, its path followed by the request's path, and its query followed by the request's query.
enum RequestURL {
    /// The URL of `request` on the server at `baseURL`.
    ///
    /// One `/` between the server URL's path and the request's is kept (`https://host/v1/` and `/pets` make
    /// `https://host/v1/pets`). Characters a URL cannot hold (spaces, non-ASCII letters) are percent-encoded as
    /// UTF-8; existing percent-escapes are kept as they are.
    /// - Throws: ``CourierTransportError``.
    static func make(for request: HTTPRequest, baseURL: URL) throws -> URL {
        let base = baseURL.absoluteURL
        guard let components = URLComponents(url: base, resolvingAgainstBaseURL: false),
              let baseScheme = components.scheme, !baseScheme.isEmpty,
              let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw CourierTransportError.invalidBaseURL(baseURL)
        }
        // The text up to the query or fragment; neither character can appear in a scheme or an authority.
        let string = base.absoluteString
        let beforeQuery = string[..<(string.firstIndex { $0 == "?" || $0 == "#" } ?? string.endIndex)]
        guard let separator = beforeQuery.range(of: "://") else { throw CourierTransportError.invalidBaseURL(baseURL) }
        let rest = beforeQuery[separator.upperBound...]
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        var basePath = rest[pathStart...]
        if basePath.hasSuffix("/") { basePath = basePath.dropLast() }

        let target = try target(scheme: request.scheme ?? baseScheme, authority: request.authority ?? String(rest[..<pathStart]))
        let requestPath = request.path ?? "/"
        let (path, query) = try originForm(requestPath)
        let queries = [components.percentEncodedQuery, query].compactMap { $0 }.filter { !$0.isEmpty }
        var composed = target + basePath + path
        if !queries.isEmpty { composed += "?" + queries.joined(separator: "&") }
        guard let url = URL(string: composed),
              let parsedHost = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedHost, !parsedHost.isEmpty
        else {
            if request.scheme != nil || request.authority != nil {
                throw CourierTransportError.invalidRequestTarget(scheme: request.scheme ?? baseScheme, authority: request.authority ?? host)
            }
            throw CourierTransportError.invalidRequestURL(baseURL: baseURL, path: requestPath)
        }
        return url
    }

    /// `scheme://authority`, after checking that neither holds characters that would end it early.
    private static func target(scheme: String, authority: String) throws -> String {
        let schemeIsValid = scheme.unicodeScalars.first.map(isASCIILetter) == true
            && scheme.unicodeScalars.allSatisfy { isASCIILetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
        let authorityIsValid = !authority.isEmpty
            && authority.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value != 0x7F && !"/?#\\".unicodeScalars.contains($0) }
        guard schemeIsValid, authorityIsValid else {
            throw CourierTransportError.invalidRequestTarget(scheme: scheme, authority: authority)
        }
        return scheme + "://" + authority
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// The path and the query (without `?`) of an origin-form target, with what a URL cannot hold percent-encoded.
    private static func originForm(_ target: String) throws -> (path: String, query: String?) {
        guard target.hasPrefix("/") else {
            throw CourierTransportError.invalidRequestPath(target, reason: "it does not start with \"/\"")
        }
        guard !target.contains("#") else {
            throw CourierTransportError.invalidRequestPath(target, reason: "it contains a fragment (\"#\")")
        }
        let bytes = Array(target.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    throw CourierTransportError.invalidRequestPath(target, reason: "a \"%\" is not followed by two hexadecimal digits")
                }
                index += 3
            } else {
                index += 1
            }
        }
        guard let questionMark = target.firstIndex(of: "?") else {
            return (encoded(target[...], keeping: pathCharacters), nil)
        }
        return (
            encoded(target[..<questionMark], keeping: pathCharacters),
            encoded(target[target.index(after: questionMark)...], keeping: queryCharacters)
        )
    }

    /// RFC 3986 `pchar` and `/`, with `%` (escapes were checked before).
    private static let pathCharacters: Set<UInt8> = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/%".utf8
    )
    /// RFC 3986 `query`: the path's characters and `?`.
    private static let queryCharacters: Set<UInt8> = pathCharacters.union("?".utf8)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    /// `text` with every UTF-8 byte outside `kept` written as `%XX`.
    private static func encoded(_ text: Substring, keeping kept: Set<UInt8>) -> String {
        guard !text.utf8.allSatisfy(kept.contains) else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count * 3)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if kept.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "%")))
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return result
    }
}
