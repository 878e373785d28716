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

    @OptionGroup(title: "TLS")
    var tls: TLSOptions

    @OptionGroup(title: "Network")
    var network: NetworkOptions

    enum AuthenticationType: String, ExpressibleByArgument {
        case basic, digest, bearer
    }

    /// Checks what argument-parser cannot.
    /// - Throws: ``CLIFailure`` (usage).
    func check() throws {
        if http1 && http2 { throw CLIFailure.usage("--http1.1 and --http2 exclude each other") }
        _ = try retry
        _ = try network.connectTimeout
        _ = try network.resolvedHosts()
        if authType != nil, user == nil { throw CLIFailure.usage("--auth-type needs -u") }
        if authType == .bearer, bearer != nil { throw CLIFailure.usage("give the token once: --auth-type bearer -u TOKEN, or --bearer TOKEN") }
        try tls.check()
    }

    /// The transport's settings: TLS, proxy or socket, and the HTTP version. `--timeout` (`timeout`) is also the time
    /// allowed for making a connection (TCP, a proxy's CONNECT tunnel or SOCKS handshake, TLS) unless
    /// `--connect-timeout` says otherwise, as HTTPie's `--timeout` is: no byte moves while a connection is made either,
    /// and over a lossy link a SYN retransmitted three times already takes 7 s, so the library's 10 s default would
    /// fail what the user allowed 30 s or more.
    func transportConfiguration(timeout: TimeInterval) throws -> EngineTransport.Configuration {
        var configuration = try tls.transportConfiguration()
        configuration.connectTimeout = timeout
        try network.apply(to: &configuration)
        if http1 { configuration.httpVersion = .http1Only }
        return configuration
    }

    /// The credential that answers challenges from the request's own origin (only Digest ones with
    /// `--auth-type digest`), or `nil` (none given, or one the request carries itself: `--auth-type basic` or `bearer`).
    func challengeCredential() throws -> ChallengeCredential? {
        guard let user, authType == nil || authType == .digest else { return nil }
        return ChallengeCredential(
            credential: try CredentialOption.credential(parsing: user), onlyScheme: authType == .digest ? "digest" : nil
        )
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
