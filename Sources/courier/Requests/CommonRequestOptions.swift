import ArgumentParser
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The options every command that sends requests takes (`get` … `request`, `download`, `batch`): header fields,
/// authentication, the HTTP version, TLS and the network path.
struct CommonRequestOptions: ParsableArguments {
    @Option(name: .customShort("H"), help: ArgumentHelp("A header field (repeatable); 'Name:' with no value removes it.", valueName: "Name: value"))
    var header: [String] = []

    @Option(name: .customShort("u"), help: ArgumentHelp(
        "Credential: for Basic or Digest authentication, whichever the server asks for (see --auth-type); without ':password' it is asked for on the terminal.",
        valueName: "user[:password]"
    ))
    var user: String?

    @Flag(name: .customLong("netrc"), help: "Answer Basic and Digest challenges with the login and password of the request's host in ~/.netrc ($NETRC when set), or its default entry (curl's --netrc). -u wins; the file must exist.")
    var netrc = false

    @Flag(name: .customLong("netrc-optional"), help: "As --netrc, without an error when the file does not exist.")
    var netrcOptional = false

    @Option(name: .customLong("netrc-file"), help: ArgumentHelp("As --netrc, with this file.", valueName: "path"))
    var netrcFile: String?

    @Option(help: ArgumentHelp("basic: send -u at once, without waiting for a challenge (HTTPie's default); digest: answer Digest challenges only; bearer: -u is a token sent as Authorization: Bearer. Default: answer whichever challenge the server sends.", valueName: "basic|digest|bearer"))
    var authType: AuthenticationType?

    @Option(help: ArgumentHelp("Send Authorization: Bearer <token>.", valueName: "token"))
    var bearer: String?

    @Option(name: .customLong("retry"), parsing: .unconditional, help: ArgumentHelp("Retry a failed request up to n times, 0 to 100 (transient errors; 408, 429, 500, 502, 503, 504; idempotent methods), with backoff and Retry-After (up to 30 s); each retry is printed on stderr. A download cut off midway is not retried: --continue takes it up.", valueName: "n"))
    var retryGiven: OptionNumber = 0

    @Flag(help: "Accepted for curl's sake: responses are always asked for compressed (Accept-Encoding: gzip, deflate) and decoded, except by download, which saves the server's bytes as they are.")
    var compressed = false

    @Flag(name: .customLong("http1.1"), help: "Speak HTTP/1.1 only.")
    var http1 = false

    @Flag(name: .customLong("http2"), help: "Offer HTTP/2 over TLS (ALPN) and fall back to HTTP/1.1: the default.")
    var http2 = false

    enum AuthenticationType: String, ExpressibleByArgument {
        case basic, digest, bearer
    }

    /// Checks what argument-parser cannot, with the command's `tls` and `network` groups.
    /// - Throws: ``CLIFailure`` (usage).
    func check(tls: TLSOptions, network: NetworkOptions) throws {
        if http1 && http2 { throw CLIFailure.usage("--http1.1 and --http2 exclude each other") }
        _ = try retry
        _ = try network.connectTimeout
        _ = try network.resolvedHosts()
        if authType != nil, user == nil { throw CLIFailure.usage("--auth-type needs -u") }
        if [netrc, netrcOptional, netrcFile != nil].filter({ $0 }).count > 1 {
            throw CLIFailure.usage("--netrc, --netrc-optional and --netrc-file exclude each other")
        }
        if authType == .bearer, bearer != nil { throw CLIFailure.usage("give the token once: --auth-type bearer -u TOKEN, or --bearer TOKEN") }
        try tls.check()
    }

    /// The transport's settings: TLS, proxy or socket, and the HTTP version. `--timeout` (`timeout`) is also the time
    /// allowed for making a connection (TCP, a proxy's CONNECT tunnel or SOCKS handshake, TLS) unless
    /// `--connect-timeout` says otherwise, as HTTPie's `--timeout` is: no byte moves while a connection is made either,
    /// and over a lossy link a SYN retransmitted three times already takes 7 s, so the library's 10 s default would
    /// fail what the user allowed 30 s or more.
    func transportConfiguration(tls: TLSOptions, network: NetworkOptions, timeout: TimeInterval) throws -> EngineTransport.Configuration {
        var configuration = try tls.transportConfiguration()
        configuration.connectTimeout = timeout
        try network.apply(to: &configuration)
        if http1 { configuration.httpVersion = .http1Only }
        return configuration
    }

    /// The credential that answers challenges from the request's own origin (only Digest ones with
    /// `--auth-type digest`): `-u`'s, else the netrc file's entry for the request's host; `nil` when there is none, or
    /// when the request carries it itself (`--auth-type basic` or `bearer`).
    func challengeCredential(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ChallengeCredential? {
        guard let user else {
            return try netrcFile(environment: environment).map { ChallengeCredential(source: .netrc($0), onlyScheme: nil) }
        }
        guard authType == nil || authType == .digest else { return nil }
        return ChallengeCredential(
            source: .given(try CredentialOption.credential(parsing: user)), onlyScheme: authType == .digest ? "digest" : nil
        )
    }

    /// The netrc file `--netrc`, `--netrc-optional` or `--netrc-file` names, read; `nil` without those options, or
    /// with `--netrc-optional` when the file does not exist. `--netrc` reads `$NETRC`, else `~/.netrc`, as curl does.
    /// - Throws: ``CLIFailure`` (usage) for a file that cannot be read or has a syntax error.
    func netrcFile(environment: [String: String]) throws(CLIFailure) -> NetrcFile? {
        let path: String
        if let netrcFile {
            path = netrcFile
        } else if netrc || netrcOptional {
            guard let named = environment["NETRC"].flatMap({ $0.isEmpty ? nil : $0 })
                    ?? environment["HOME"].map({ URL(fileURLWithPath: $0).appendingPathComponent(".netrc").path }) else {
                throw CLIFailure.usage("--netrc: neither NETRC nor HOME is set")
            }
            path = named
        } else {
            return nil
        }
        if netrcOptional, !FileManager.default.fileExists(atPath: path) { return nil }
        return try NetrcFile(contentsOf: path)
    }

    /// `--retry` (default 0), bounded by ``NumericOption/retry``.
    var retry: Int {
        get throws(CLIFailure) { try NumericOption.retry.count(retryGiven) }
    }

    /// `--retry`'s interceptor (no budget: one command's requests get all the retries they ask for), or none (the
    /// default, `--retry 0`).
    var retryInterceptors: [any RequestInterceptor] {
        get throws(CLIFailure) {
            let retry = try retry
            return retry > 0 ? [RetryPolicy(retryLimit: retry, budget: nil)] : []
        }
    }

    /// The line `--retry` (`limit`) prints on standard error before a retry.
    static func retryLine(_ event: RetryEvent, limit: Int) -> String {
        let reason = event.response.map { "status \($0.statusCode)" } ?? (event.error as? URLError)?.localizedDescription ?? "\(event.error)"
        return "courier: retry \(event.retryNumber) of \(limit) in \(String(format: "%.1f", event.delay)) s after \(reason)"
    }

    /// Adds `-H`, `--bearer` and the `Authorization` of `--auth-type basic|bearer` to `request`.
    func apply(to request: inout URLRequest) throws {
        let headers = try header.map(HeaderOption.init(parsing:))
        if let token = bearer {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        if let user {
            switch authType {
            case .basic?:
                let credential = try CredentialOption.credential(parsing: user)
                let pair = Data("\(credential.user ?? ""):\(credential.password ?? "")".utf8).base64EncodedString()
                request.setValue("Basic \(pair)", forHTTPHeaderField: "Authorization")
            case .bearer?:
                request.setValue("Bearer \(user)", forHTTPHeaderField: "Authorization")
            case .digest?, nil:
                break
            }
        }
        for header in headers {
            request.setValue(header.value.isEmpty ? nil : header.value, forHTTPHeaderField: header.name)
        }
    }
}
