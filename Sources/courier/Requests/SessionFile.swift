import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--session NAME|PATH`: cookies, a credential and custom header fields kept between runs in one JSON file, readable
/// by its owner only (mode 0600), as HTTPie's sessions.
///
/// A NAME is kept per host and port under `$XDG_CONFIG_HOME/courier/sessions/<host>_<port>/NAME.json` (default
/// `~/.config`); anything with a `/` is a path. The credential is stored as given (plain text, like HTTPie's): the
/// file's mode is its protection. A session remembers the origin it was made for: its credential and header fields
/// go to that origin only (a path session used for another host sends its cookies, which the jar scopes itself, and
/// nothing else), where HTTPie would send them to any host.
struct SessionFile {
    static let formatName = "courier-session"

    /// `scheme://host:port` of the requests the session was made with; `nil` for a new session or an older file.
    var origin: String?

    /// Custom header fields sent with every request of the session (not `Content-*` or `If-*`, which belong to one
    /// request).
    var headers: [String: String] = [:]
    /// The `-u` value and `--auth-type` last given.
    var auth: Auth?
    /// The cookie jar, in the library's cookie file format (session cookies included), as JSON.
    var cookies: Data?

    struct Auth {
        var user: String
        var type: String?
    }

    /// Where the session named `argument` lives for requests to `url`.
    static func location(of argument: String, for url: URL?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        if argument.contains("/") { return URL(fileURLWithPath: argument).standardizedFileURL }
        guard !argument.isEmpty, argument != ".", argument != "..", !argument.contains("\0") else {
            throw CLIFailure.usage("--session: \"\(argument)\" is not a session name")
        }
        let base = environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        let host = (url?.host ?? "localhost").map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }
        let port = url?.port ?? (url?.scheme?.lowercased() == "https" ? 443 : 80)
        return base.appendingPathComponent("courier/sessions/\(String(host))_\(port)/\(argument).json")
    }

    /// The session at `url`, or an empty one when there is no file yet.
    /// - Throws: ``CLIFailure`` (usage) when the file exists but is not a Courier session.
    static func load(from url: URL) throws -> SessionFile {
        guard FileManager.default.fileExists(atPath: url.path) else { return SessionFile() }
        let notASession = CLIFailure.usage("--session: \(url.path) is not a Courier session file")
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object["format"] as? String == formatName, object["version"] as? Int == 1
        else { throw notASession }
        var session = SessionFile()
        if let origin = object["origin"] {
            guard let origin = origin as? String else { throw notASession }
            session.origin = origin
        }
        if let headers = object["headers"] {
            guard let headers = headers as? [String: String] else { throw notASession }
            session.headers = headers
        }
        if let auth = object["auth"] {
            guard let auth = auth as? [String: String], let user = auth["user"] else { throw notASession }
            session.auth = Auth(user: user, type: auth["type"])
        }
        if let cookies = object["cookies"] {
            guard JSONSerialization.isValidJSONObject(cookies), let data = try? JSONSerialization.data(withJSONObject: cookies) else {
                throw notASession
            }
            session.cookies = data
        }
        return session
    }

    /// `scheme://host:port` of `url` (the default port written out), or `nil` without a scheme or host.
    static func origin(of url: URL?) -> String? {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Whether the session's credential and header fields may go to `url`: its own origin, or any origin of the
    /// host the folder of a named session is for (an older file without an origin).
    func isForOrigin(of url: URL?, named: Bool) -> Bool {
        guard let origin else { return named }
        return origin == Self.origin(of: url)
    }

    /// The cookie jar the session carries (empty for a new session).
    func cookieJar() throws -> CookieJar {
        guard let cookies else { return CookieJar() }
        return try Self.throughTemporaryFile(cookies) { try CookieJar(contentsOf: $0) }
    }

    /// Takes what this run sent and received: `jar`'s cookies, the run's `-H` fields and `Name:value` items, its `-u`.
    /// A session made for another origin keeps its own fields and credential and takes only the cookies.
    mutating func update(jar: CookieJar, headers given: [HeaderOption], auth: Auth?, origin requestOrigin: String?) throws {
        cookies = try Self.throughTemporaryFile(nil) { file in
            try jar.write(to: file, includingSessionCookies: true)
            return try Data(contentsOf: file)
        }
        if let origin, origin != requestOrigin { return }
        origin = requestOrigin
        for header in given {
            let name = header.name.lowercased()
            guard !name.hasPrefix("content-"), !name.hasPrefix("if-") else { continue }
            headers = headers.filter { $0.key.lowercased() != name }
            if !header.value.isEmpty { headers[header.name] = header.value }
        }
        if let auth { self.auth = auth }
    }

    /// Writes the session to `url` (creating its folder), replacing the file atomically, with mode 0600.
    func write(to url: URL) throws {
        var object: [String: Any] = ["format": Self.formatName, "version": 1, "headers": headers]
        if let origin { object["origin"] = origin }
        if let auth { object["auth"] = ["user": auth.user, "type": auth.type].compactMapValues { $0 } }
        if let cookies, let jar = try? JSONSerialization.jsonObject(with: cookies) { object["cookies"] = jar }
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Replaced at once: a reader sees the old session or the new one.
            try PrivateFile.replace(url, with: data)
        } catch let failure as PrivateFile.Failure {
            throw CLIFailure.usage("--session: cannot write \(url.path): \(failure.reason)")
        } catch {
            throw CLIFailure.usage("--session: cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    /// Runs `body` with a private temporary file holding `data` (or nothing), then removes it: the cookie jar reads
    /// and writes files.
    private static func throughTemporaryFile<T>(_ data: Data?, _ body: (URL) throws -> T) throws -> T {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-session-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        if let data {
            do {
                try PrivateFile.replace(file, with: data)
            } catch {
                throw CLIFailure.usage("--session: cannot stage the session's cookies")
            }
        }
        return try body(file)
    }
}
