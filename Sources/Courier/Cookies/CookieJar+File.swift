import Foundation

/// A cookie jar on disk: JSON (`{"format": "courier-cookies", "version": 1, "cookies": [...]}`), replaced atomically
/// and readable by its owner only (mode 0600: cookies are credentials; see `PrivateFile`).
extension CookieJar {
    /// Loads the cookies of a file written by ``write(to:includingSessionCookies:now:)``; expired ones are skipped.
    /// - Throws: ``CookieJarFileError`` when the file cannot be read, is not a Courier cookie file, or holds a cookie
    ///   that could not have come from a `Set-Cookie` header (empty name, control characters, a path without `/`).
    public convenience init(contentsOf url: URL, now: Date = Date()) throws {
        self.init()
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CookieJarFileError(url: url, reason: "cannot be read (\(error.localizedDescription))")
        }
        let file: CookieJarFile
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            file = try decoder.decode(CookieJarFile.self, from: data)
        } catch {
            throw CookieJarFileError(url: url, reason: "is not a Courier cookie file")
        }
        guard file.format == CookieJarFile.formatName else {
            throw CookieJarFileError(url: url, reason: "is not a Courier cookie file (format \(file.format.debugDescription))")
        }
        guard file.version == CookieJarFile.currentVersion else {
            throw CookieJarFileError(url: url, reason: "has version \(file.version), and this Courier reads version \(CookieJarFile.currentVersion)")
        }
        for (index, cookie) in file.cookies.enumerated() {
            if let problem = Self.problem(with: cookie) {
                throw CookieJarFileError(url: url, reason: "holds an invalid cookie at index \(index): \(problem)")
            }
            if !cookie.isExpired(at: now) { store(cookie) }
        }
    }

    /// Writes the jar's cookies to `url`, replacing the file atomically, with mode 0600.
    /// - Parameters:
    ///   - url: The file.
    ///   - includingSessionCookies: Whether cookies without an expiry date are written too. Default `false`, as
    ///     `HTTPCookieStorage` keeps session cookies for the session only.
    ///   - now: Cookies expired at this date are left out. Default now.
    /// - Throws: ``CookieJarFileError`` when the file cannot be written.
    public func write(to url: URL, includingSessionCookies: Bool = false, now: Date = Date()) throws {
        let cookies = allCookies
            .filter { !$0.isExpired(at: now) && (includingSessionCookies || $0.expiresAt != nil) }
            .sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(CookieJarFile(cookies: cookies))
        } catch {
            throw CookieJarFileError(url: url, reason: "cannot be encoded (\(error))")
        }
        do throws(PrivateFile.Failure) {
            try PrivateFile.replace(url, with: data)
        } catch {
            throw CookieJarFileError(url: url, reason: "cannot be written (\(error.reason))")
        }
    }

    /// Why `cookie` could not have been set by a server, or `nil` when it could.
    private static func problem(with cookie: StoredCookie) -> String? {
        func hasControlCharacters(_ text: String) -> Bool {
            text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        }
        if cookie.name.isEmpty { return "an empty name" }
        if hasControlCharacters(cookie.name) || cookie.name.contains(where: { ";=".contains($0) }) {
            return "its name has control characters, ';' or '='"
        }
        if hasControlCharacters(cookie.value) || cookie.value.contains(";") { return "its value has control characters or ';'" }
        if cookie.domain.isEmpty || hasControlCharacters(cookie.domain) || cookie.domain.contains(where: { " /;".contains($0) }) {
            return "its domain \(cookie.domain.debugDescription) is not a host name"
        }
        if !cookie.path.hasPrefix("/") || hasControlCharacters(cookie.path) || cookie.path.contains(";") {
            return "its path \(cookie.path.debugDescription) does not start with '/' or has control characters or ';'"
        }
        return nil
    }
}

/// The JSON document of a cookie jar file.
private struct CookieJarFile: Codable {
    static let formatName = "courier-cookies"
    static let currentVersion = 1

    var format = CookieJarFile.formatName
    var version = CookieJarFile.currentVersion
    var cookies: [StoredCookie]

    init(cookies: [StoredCookie]) {
        self.cookies = cookies
    }
}

/// A cookie jar file that could not be read or written.
public struct CookieJarFileError: Error, CustomStringConvertible, LocalizedError {
    /// The file.
    public let url: URL
    /// What is wrong with it.
    public let reason: String

    /// One line naming the file and the problem.
    public var description: String { "The cookie file \(url.path) \(reason)." }
    /// The same as ``description``.
    public var errorDescription: String? { description }
}
