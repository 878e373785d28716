import Foundation

// Foundation-only on purpose: the fuzz target in /Fuzz compiles this file (a symlink) next to the engine.

/// What a URL must satisfy before any engine sees it.
///
/// Foundation's `URL` accepts URLs that the engine cannot use, and some it traps on: SwiftNIO's
/// `SocketAddress` stops the process for a port above 65535, AsyncHTTPClient asserts a host is not
/// empty, and a host that percent-decodes to a line break would be written into the `Host` header
/// as it is. Every URL a request goes to (the caller's, and every redirect's `Location`) passes this
/// check first, so such a URL fails with `URLError(.badURL)` instead.
enum RequestURLCheck {
    /// Why a URL was refused.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        /// `true` when only the scheme is wrong (`URLError(.unsupportedURL)`); `false` for a malformed URL.
        let isUnsupportedScheme: Bool
        /// One sentence, for the error's description.
        let description: String

        /// The error a request to `url` fails with: `URLError(.unsupportedURL)` or `URLError(.badURL)`.
        func urlError(for url: URL, userInfo: [String: Any] = [:]) -> URLError {
            URLError(isUnsupportedScheme ? .unsupportedURL : .badURL, userInfo: userInfo.merging([
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: description,
            ]) { $1 })
        }
    }

    /// The URL's checked connection target: its scheme (lower-cased), its host as given and its port.
    /// For `http+unix` the host is the socket's path (percent-decoded) and the port 0.
    struct Target: Equatable {
        let scheme: String
        let host: String
        let port: Int

        /// Whether the target is a Unix domain socket (`http+unix`).
        var isUnixSocket: Bool { scheme == Self.unixSocketScheme }

        /// AsyncHTTPClient's scheme for HTTP over a Unix domain socket: `http+unix://<percent-encoded path>/path`.
        static let unixSocketScheme = "http+unix"
    }

    /// The longest socket path the kernel takes (`sun_path` holds 108 bytes with its terminating NUL on Linux,
    /// 104 on Apple platforms).
    static let maximumSocketPathLength = 103

    /// Checks `url` for an `http`, `https` or `http+unix` request.
    /// - Throws: ``Refusal`` naming the first problem.
    static func check(_ url: URL) throws(Refusal) -> Target {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" || scheme == Target.unixSocketScheme else {
            throw Refusal(
                isUnsupportedScheme: true,
                description: "Unsupported URL scheme \(url.scheme.map { "\"\($0)\"" } ?? "(none)"); Courier speaks http, https and http+unix."
            )
        }
        if scheme == Target.unixSocketScheme {
            return Target(scheme: scheme, host: try socketPath(of: url), port: 0)
        }
        guard let host = url.host, !host.isEmpty else {
            throw Refusal(isUnsupportedScheme: false, description: "The URL has no host.")
        }
        guard isAcceptableHost(host) else {
            throw Refusal(isUnsupportedScheme: false, description: "The URL's host \(host.debugDescription) contains characters a host name cannot have.")
        }
        let port = try port(of: url, scheme: scheme)
        return Target(scheme: scheme, host: host, port: port)
    }

    /// The socket path of an `http+unix` URL: its percent-decoded host, which must not be empty, hold a NUL or a line
    /// break, or be longer than the kernel takes.
    private static func socketPath(of url: URL) throws(Refusal) -> String {
        guard let path = url.host, !path.isEmpty else {
            throw Refusal(isUnsupportedScheme: false, description: "The http+unix URL has no socket path (write it percent-encoded as the host: http+unix://%2Fpath%2Fto.sock/).")
        }
        guard !path.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
            throw Refusal(isUnsupportedScheme: false, description: "The socket path \(path.debugDescription) contains a control character.")
        }
        guard path.utf8.count <= maximumSocketPathLength else {
            throw Refusal(isUnsupportedScheme: false, description: "The socket path \(path.debugDescription) is longer than \(maximumSocketPathLength) bytes, the most a Unix domain socket address holds.")
        }
        return path
    }

    /// The port: the URL's own, which must be 1…65535, or the scheme's default.
    ///
    /// Read from the URL's text, not only from `URL.port`: Foundation reports no port at all for a
    /// number too large for `Int`, which would silently send the request to the default port.
    private static func port(of url: URL, scheme: String) throws(Refusal) -> Int {
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = url.port {
            // Foundation parsed a port: only its range is left to check.
            guard (1...65535).contains(port) else {
                throw Refusal(isUnsupportedScheme: false, description: "The URL's port \(port) is not between 1 and 65535.")
            }
            return port
        }
        guard let text = portText(of: url.absoluteString) else { return defaultPort }
        if text.isEmpty { return defaultPort }  // "http://host:/" is the default port (RFC 3986 §3.2.3)
        guard text.utf8.count <= 5, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let port = Int(text), (1...65535).contains(port) else {
            throw Refusal(isUnsupportedScheme: false, description: "The URL's port \(text) is not between 1 and 65535.")
        }
        return port
    }

    /// The text after the authority's last colon (outside an IPv6 literal), or `nil` when the
    /// authority names no port.
    static func portText(of absoluteString: String) -> Substring? {
        guard let separator = absoluteString.range(of: "://") else { return nil }
        let rest = absoluteString[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let afterHost: Substring
        if hostAndPort.first == "[" {
            guard let close = hostAndPort.firstIndex(of: "]") else { return nil }
            afterHost = hostAndPort[hostAndPort.index(after: close)...]
        } else {
            afterHost = hostAndPort.firstIndex(of: ":").map { hostAndPort[$0...] } ?? ""
        }
        guard afterHost.first == ":" else { return nil }
        return afterHost.dropFirst()
    }

    /// Whether `host` (percent-decoded, as `URL.host` gives it) can be connected to and written into
    /// a `Host` header: no control characters, spaces or URL delimiters; an IPv6 literal holds only
    /// hexadecimal digits, colons, dots and an optional `%zone`.
    static func isAcceptableHost(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        if bytes.contains(UInt8(ascii: ":")) {
            return isIPv6Literal(bytes)
        }
        return bytes.allSatisfy { byte in
            byte > 0x20 && byte != 0x7F && !forbiddenInHostName.contains(byte)
        }
    }

    private static let forbiddenInHostName: Set<UInt8> = Set("\"#%/<>?@[\\]^`{|}:".utf8)

    private static func isIPv6Literal(_ bytes: [UInt8]) -> Bool {
        let address: ArraySlice<UInt8>
        if let percent = bytes.firstIndex(of: UInt8(ascii: "%")) {
            let zone = bytes[(percent + 1)...]
            guard !zone.isEmpty, zone.allSatisfy(isZoneByte) else { return false }
            address = bytes[..<percent]
        } else {
            address = bytes[...]
        }
        return address.count >= 2 && address.allSatisfy { isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isZoneByte(_ byte: UInt8) -> Bool {
        isHexDigit(byte) || (UInt8(ascii: "g")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "G")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
    }

    /// Whether `method` is an RFC 9110 token (it is written into the request line as it is).
    static func isToken(_ method: String) -> Bool {
        !method.isEmpty && method.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return tokenPunctuation.contains(byte)
            }
        }
    }

    private static let tokenPunctuation: Set<UInt8> = Set("!#$%&'*+-.^_`|~".utf8)
}
