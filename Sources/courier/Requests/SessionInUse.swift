import Courier
import Foundation

/// One run's `--session`: the file it was read from, what it lends the run's requests (cookies everywhere the jar
/// scopes them; the credential and header fields at the session's own origin only), and the write-back at the end.
/// Requests, downloads and batches use it the same way.
struct SessionInUse {
    let location: URL
    private(set) var file: SessionFile
    /// A name (kept in the folder of one host and port) rather than a path.
    let isNamed: Bool
    /// `--session` rather than `--session-read-only`.
    let writesBack: Bool
    /// The jar the run's requests use, loaded from the file; written back by ``save(headers:auth:origin:)``.
    let jar: CookieJar

    init(location: URL, file: SessionFile, isNamed: Bool, writesBack: Bool) throws {
        self.location = location
        self.file = file
        self.isNamed = isNamed
        self.writesBack = writesBack
        jar = try file.cookieJar()
    }

    /// Whether the session's credential and header fields go to `url`.
    func applies(to url: URL?) -> Bool {
        file.isForOrigin(of: url, named: isNamed)
    }

    /// Tells on standard error that the session's credential and header fields stay back from `url` (another origin
    /// than the session's), when it has any.
    func warnIfWithheld(from url: URL?) {
        guard !applies(to: url), file.auth != nil || !file.headers.isEmpty else { return }
        StandardStreams.writeError("""
            courier: the session \(location.path) was made for \(file.origin ?? "another host"); \
            its credential and header fields are not sent to \(SessionFile.origin(of: url) ?? url?.absoluteString ?? "this URL")

            """)
    }

    /// `common` with the session's `-u` and `--auth-type` when the command line gave no `-u` and the session applies
    /// to `url`: a `-u` on the command line replaces the session's.
    func lending(to common: CommonRequestOptions, for url: URL?) -> CommonRequestOptions {
        guard common.user == nil, applies(to: url), let auth = file.auth else { return common }
        var lent = common
        lent.user = auth.user
        lent.authType = auth.type.flatMap(CommonRequestOptions.AuthenticationType.init(rawValue:))
        return lent
    }

    /// The session's header fields for a request to `url` (none for another origin); the command line's own `-H`
    /// and items come on top.
    func headers(for url: URL?) -> [String: String] {
        applies(to: url) ? file.headers : [:]
    }

    /// Writes back what the run changed, unless the session is read-only: the jar's cookies and, for the session's
    /// origin (`url`'s), the command line's `-H` fields, `Name:value` items (`itemHeaders`) and `-u`.
    /// - Throws: ``CLIFailure`` (usage) when the file cannot be written or a `-H` is malformed.
    mutating func save(given common: CommonRequestOptions, itemHeaders: [HeaderOption] = [], for url: URL?) throws {
        guard writesBack else { return }
        try file.update(
            jar: jar, headers: try common.header.map(HeaderOption.init(parsing:)) + itemHeaders,
            auth: common.user.map { SessionFile.Auth(user: $0, type: common.authType?.rawValue) },
            origin: SessionFile.origin(of: url)
        )
        try file.write(to: location)
    }
}
