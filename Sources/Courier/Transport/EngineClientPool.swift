import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Synchronization

/// The `HTTPClient`s of one ``EngineTransport``: one for plain HTTP, one per proxy for plain HTTP through it,
/// and one per (security policy instance, its TLS stack requirements, host, proxy) for HTTPS, all on the same event
/// loop group. The engine's proxy setting is client-wide, hence a client per proxy.
///
/// AsyncHTTPClient's connection hooks are client-wide and do not know the host, so enforcing a policy (which checks
/// the host name) needs a client per host; keying by policy identity means two policies never share a connection.
/// The lookup on the request path is one dictionary read under a lock plus one atomic load; a client and its TLS
/// configuration are made only for the first request to a host, or after the policy's trust roots changed.
///
/// HTTPS clients are bounded (a crawler or a long-running service meets any number of hosts, and each client holds
/// about 46 KB and its idle connections): when the pool makes a client, it first shuts down the HTTPS clients that
/// have had no request in flight for ``EngineTransport/Configuration/idlePoolLifetime``, then, while
/// ``EngineTransport/Configuration/maximumIdlePools`` or more idle ones remain, the least recently used
/// (``EngineClientUsage``), so that with the new one there are at most that many. A client carrying a request is never shut down; the next request to its host makes a new
/// one. The plain-HTTP clients (one, and one per proxy) are few and stay. AsyncHTTPClient 1.37 frees a client it shut
/// down only when its idle connections' timers run out (``EngineTransport/Configuration/idleConnectionTimeout``:
/// they are not cancelled by the shutdown), so a retired client still costs its memory for that long; the system's
/// roots are looked up rather than loaded into each client's TLS context (``SystemTrustRoots``) to keep that small.
final class EngineClientPool: Sendable {
    /// One engine client (connection pool) and the tracker of the connections it makes.
    struct EngineClient: Sendable {
        let client: HTTPClient
        let connections: ConnectionEstablishmentTracker
        /// The security policy's check of this client's HTTPS connections; nil for plain HTTP.
        var evaluation: TLSHandshakeEvaluation? = nil
        /// The proxy this client's connections go through, if any.
        var proxy: ProxyServer? = nil
        /// The server-trust handlers of the requests waiting on this client (HTTPS only).
        var trustAnswerers: ServerTrustAnswerers? = nil
        /// Its requests in flight and when it was last used: the caller of ``EngineClientPool/client(for:)`` ends the
        /// request it was given the client for with `usage.end()`, exactly once.
        let usage = EngineClientUsage()

        /// Whether requests go to an HTTP proxy that forwards them (plain HTTP): the request's URL must then name the
        /// proxy, and its `Host` header the origin (see ``AbsoluteFormRequestWriter``).
        var forwardsThroughProxy: Bool { evaluation == nil && proxy?.kind == .http }

        /// `error` in the policy's and the proxy's terms (see
        /// `TLSHandshakeEvaluation.explainingHandshakeFailure(_:)`): a `CONNECT` refused with 407 or otherwise
        /// becomes a ``ProxyError``.
        func explaining(_ error: any Error, target: RequestURLCheck.Target) -> any Error {
            if let proxy, let engineError = error as? HTTPClientError {
                if engineError == .proxyAuthenticationRequired {
                    return ProxyError.authenticationRequired(proxy: proxy.description, credentialsWereSent: proxy.credentials != nil)
                }
                if engineError == .invalidProxyResponse {
                    return ProxyError.tunnelRefused(proxy: proxy.description, target: "\(target.host):\(target.port)")
                }
            }
            return evaluation?.explainingHandshakeFailure(error) ?? error
        }
    }

    private struct Key: Hashable {
        let policy: ObjectIdentifier
        let host: String
        /// One client per port too, so that a server-trust challenge is asked of a request to the same port.
        let port: Int
        let proxy: ProxyServer?
    }

    private struct Entry {
        /// Held strongly, so the policy's identity cannot be reused while the entry exists.
        let policy: SecurityPolicy
        let requirementsRevision: UInt64
        let requirements: TLSStackRequirements
        let client: EngineClient
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Plain-HTTP clients, one per proxy.
        var proxiedPlainClients: [ProxyServer: EngineClient] = [:]
        /// Clients replaced after their policy's requirements changed; kept while they finish their requests (shut
        /// down when idle, at the next client made, or at shutdown).
        var retired: [EngineClient] = []
        /// How many HTTPS clients were made (for tests).
        var made = 0
        var isShutDown = false
    }

    /// The client for `http` URLs (no TLS, so no policy).
    let plainClient: EngineClient
    /// The event loop group every client runs on.
    let eventLoopGroup: any EventLoopGroup
    /// The group's loops, for ``eventLoop(for:)``.
    private let eventLoops: [any EventLoop]
    private let configuration: EngineTransport.Configuration
    private let hostPolicies: [String: SecurityPolicy]
    private let state = Mutex(State())
    /// ``EngineTransport/Configuration/idlePoolLifetime`` in nanoseconds (at least 0).
    private let idleLifetime: UInt64
    /// ``EngineTransport/Configuration/maximumIdlePools`` (at least 0).
    private let maximumIdleClients: Int
    /// The client the application owns, when the pool shares one (``init(configuration:sharing:)``): every request
    /// goes through it, and ``shutdown()`` leaves it running.
    private let shared: (plain: EngineClient, secure: EngineClient)?

    /// A pool that sends every request through `client`, which the application owns.
    init(configuration: EngineTransport.Configuration, sharing client: HTTPClient) {
        self.configuration = configuration
        self.eventLoopGroup = client.eventLoopGroup
        self.eventLoops = Array(client.eventLoopGroup.makeIterator())
        self.hostPolicies = Dictionary(configuration.securityPolicies.map { ($0.key.lowercased(), $0.value) }) { $1 }
        idleLifetime = 0
        maximumIdleClients = 0
        // Its connections are not seen (no verifier of Courier's on them): the trackers stay empty.
        let plain = EngineClient(client: client, connections: ConnectionEstablishmentTracker(isSecure: false))
        self.plainClient = plain
        self.shared = (plain, EngineClient(client: client, connections: ConnectionEstablishmentTracker(isSecure: true)))
    }

    init(configuration: EngineTransport.Configuration, eventLoopGroup: any EventLoopGroup) {
        self.shared = nil
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.eventLoops = Array(eventLoopGroup.makeIterator())
        var hostPolicies: [String: SecurityPolicy] = [:]
        for (host, policy) in configuration.securityPolicies {
            hostPolicies[host.lowercased()] = policy
        }
        self.hostPolicies = hostPolicies
        let lifetime = configuration.idlePoolLifetime
        // At most a year (so also for `.infinity`); 0 (or less, or NaN): idle clients go whenever a client is made.
        idleLifetime = lifetime.isNaN || lifetime <= 0 ? 0 : UInt64(min(lifetime, 365 * 86_400) * 1_000_000_000)
        maximumIdleClients = max(0, configuration.maximumIdlePools)
        let connections = ConnectionEstablishmentTracker(isSecure: false)
        self.plainClient = EngineClient(
            client: HTTPClient(
                eventLoopGroupProvider: .shared(eventLoopGroup),
                configuration: configuration.makeClientConfiguration(
                    tls: configuration.tlsConfiguration,
                    verifier: Self.recording(connections, after: configuration.connectionVerifier)
                ),
                backgroundActivityLogger: configuration.logger
            ),
            connections: connections
        )
    }

    /// The client for a request to `target`: through the proxy the configuration picks for it, if any.
    /// - Throws: `HTTPClientError.alreadyShutdown` after ``shutdown()``.
    func client(for target: RequestURLCheck.Target) throws -> EngineClient {
        // A configured Unix domain socket carries every request, so no proxy applies.
        let proxy = configuration.unixSocketPath == nil
            ? configuration.proxy?.proxy(forScheme: target.scheme, host: target.host, port: target.port) : nil
        if let shared { return try sharedClient(shared, for: target, proxy: proxy) }
        guard target.scheme == "https" else {
            guard let proxy else {
                guard !state.withLock({ $0.isShutDown }) else { throw HTTPClientError.alreadyShutdown }
                plainClient.usage.begin()
                return plainClient
            }
            let client = try plainClient(through: proxy)
            client.usage.begin()
            return client
        }
        return try client(forHTTPSHost: target.host, port: target.port, proxy: proxy)
    }

    /// The application's client for `target`, when what the request needs is what that client can give.
    /// - Throws: ``SharedClientError`` naming what it cannot give; `HTTPClientError.alreadyShutdown` after
    ///   ``shutdown()``.
    private func sharedClient(
        _ shared: (plain: EngineClient, secure: EngineClient), for target: RequestURLCheck.Target, proxy: ProxyServer?
    ) throws -> EngineClient {
        guard !isShutDown else { throw HTTPClientError.alreadyShutdown }
        if let path = configuration.unixSocketPath { throw SharedClientError.unixSocketNeedsOwnClient(path: path) }
        if let proxy { throw SharedClientError.proxyNeedsOwnClient(proxy: proxy.description) }
        guard target.scheme == "https" else {
            shared.plain.usage.begin()
            return shared.plain
        }
        if configuration.clientCertificate != nil { throw SharedClientError.clientCertificateNeedsOwnClient }
        let host = Self.normalized(target.host)
        guard policy(forHost: host).checksNothingBeyondTheTLSStack else {
            throw SharedClientError.securityPolicyNeedsOwnClient(host: host)
        }
        shared.secure.usage.begin()
        return shared.secure
    }

    /// The client for plain-HTTP requests through `proxy`, made on first use.
    private func plainClient(through proxy: ProxyServer) throws -> EngineClient {
        let configuration = self.configuration
        let group = eventLoopGroup
        return try state.withLock { state throws -> EngineClient in
            guard !state.isShutDown else { throw HTTPClientError.alreadyShutdown }
            if let client = state.proxiedPlainClients[proxy] { return client }
            let connections = ConnectionEstablishmentTracker(isSecure: false)
            let client = EngineClient(
                client: HTTPClient(
                    eventLoopGroupProvider: .shared(group),
                    configuration: configuration.makeClientConfiguration(
                        tls: configuration.tlsConfiguration,
                        verifier: Self.recording(connections, after: configuration.connectionVerifier),
                        proxy: proxy,
                        forwardsPlainHTTP: proxy.kind == .http
                    ),
                    backgroundActivityLogger: configuration.logger
                ),
                connections: connections,
                proxy: proxy
            )
            state.proxiedPlainClients[proxy] = client
            return client
        }
    }

    /// The event loop that runs the requests to `target` and their connections: always the same one for an origin.
    ///
    /// AsyncHTTPClient calls a request's delegate on the request's own event loop; when its connection lives on
    /// another loop, every callback (head, each body part, the end) crosses threads, a wake-up each. Tying the
    /// delegate and the channel to one loop per origin removes those hops; origins still spread over the group.
    func eventLoop(for target: RequestURLCheck.Target) -> any EventLoop {
        guard eventLoops.count > 1 else { return eventLoops.first ?? eventLoopGroup.next() }
        var hasher = Hasher()
        hasher.combine(target.host)
        hasher.combine(target.port)
        let index = Int(UInt(bitPattern: hasher.finalize()) % UInt(eventLoops.count))
        return eventLoops[index]
    }

    /// The HTTPS clients, how many of them carry a request now, and how many were made (for tests).
    var httpsClientCounts: (all: Int, busy: Int, made: Int) {
        state.withLock { state in
            (state.entries.count, state.entries.values.count { $0.client.usage.idleSince == nil }, state.made)
        }
    }

    /// Whether ``shutdown()`` was called: a request that fails from then on failed because of it.
    var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// The policy that applies to `host` (already lower-cased).
    func policy(forHost host: String) -> SecurityPolicy {
        hostPolicies[host] ?? configuration.securityPolicy
    }

    /// The client for HTTPS requests to `host`, made on first use.
    /// - Throws: `HTTPClientError.alreadyShutdown` after ``shutdown()``; SwiftNIO SSL's error when a trust root of the
    ///   policy cannot be loaded.
    func client(forHTTPSHost rawHost: String, port: Int = 443, proxy: ProxyServer? = nil) throws -> EngineClient {
        let host = Self.normalized(rawHost)
        let policy = policy(forHost: host)
        let key = Key(policy: ObjectIdentifier(policy), host: host, port: port, proxy: proxy)
        let revision = policy.tlsStackRequirementsRevision
        let current = state.withLock { state -> EngineClient? in
            guard let entry = state.entries[key], entry.requirementsRevision == revision else { return nil }
            entry.client.usage.begin()
            return entry.client
        }
        if let current { return current }
        return try makeClient(key: key, policy: policy, revision: revision)
    }

    /// Shuts every client down; the first failure is rethrown after all were asked. Calling it twice is harmless.
    /// How long ``shutdown()`` waits for each engine client: AsyncHTTPClient 1.37 can fail to finish
    /// shutting down after a server refused a client certificate over HTTP/1.1, and a caller's
    /// shutdown must not hang for ever on that.
    static let shutdownTimeLimit: TimeInterval = 5

    func shutdown() async throws {
        var firstError: (any Error)?
        for client in takeAllClients() {
            do {
                try await Self.shutdown(client, within: Self.shutdownTimeLimit)
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    private static func shutdown(_ client: HTTPClient, within seconds: TimeInterval) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let resumer = FirstResumption(continuation)
            client.shutdown(queue: .global()) { error in
                resumer.resume(with: error.map { .failure($0) } ?? .success(()))
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                resumer.resume(with: .failure(URLError(.timedOut, userInfo: [
                    NSLocalizedDescriptionKey: "The engine's connection pool did not finish shutting down within \(Int(seconds)) s; its connections are left to the process.",
                ])))
            }
        }
    }

    /// Starts shutting every client down without waiting (for a transport released without ``shutdown()``).
    func shutdownInBackground() {
        for client in takeAllClients() {
            client.shutdown { _ in }
        }
    }

    private func takeAllClients() -> [HTTPClient] {
        let plainClient = self.plainClient
        return state.withLock { state in
            guard !state.isShutDown else { return [] }
            state.isShutDown = true
            // A shared client is the application's to shut down.
            let own = shared == nil ? [plainClient] : []
            let clients = own + state.proxiedPlainClients.values + state.entries.values.map(\.client) + state.retired
            state.proxiedPlainClients = [:]
            state.entries = [:]
            state.retired = []
            return clients.map(\.client)
        }
    }

    private func makeClient(key: Key, policy: SecurityPolicy, revision: UInt64) throws -> EngineClient {
        let evaluation = TLSHandshakeEvaluation(policy: policy, domain: key.host)
        let configuration = self.configuration
        let group = eventLoopGroup
        var evicted: [HTTPClient] = []
        // Shut down outside the lock, without waiting: an evicted client carries no request.
        defer { for client in evicted { client.shutdown { _ in } } }
        return try state.withLock { state throws -> EngineClient in
            guard !state.isShutDown else { throw HTTPClientError.alreadyShutdown }
            if let entry = state.entries[key] {
                if entry.requirements == evaluation.requirements {
                    state.entries[key] = Entry(
                        policy: policy, requirementsRevision: revision, requirements: entry.requirements, client: entry.client
                    )
                    entry.client.usage.begin()
                    return entry.client
                }
                state.retired.append(entry.client)
                state.entries[key] = nil
            }
            evicted = evictIdleClients(from: &state.entries)
            // A retired client gets no new request: once idle it is of no use.
            var busyRetired: [EngineClient] = []
            for retired in state.retired {
                if retired.usage.idleSince == nil { busyRetired.append(retired) } else { evicted.append(retired.client) }
            }
            state.retired = busyRetired
            state.made += 1
            let connections = ConnectionEstablishmentTracker(isSecure: true)
            let answerers = ServerTrustAnswerers()
            let client = EngineClient(
                client: HTTPClient(
                    eventLoopGroupProvider: .shared(group),
                    configuration: configuration.makeClientConfiguration(
                        tls: try Self.tlsConfiguration(for: evaluation, configuration: configuration),
                        verifier: Self.recording(connections, after: Self.verifier(
                            for: evaluation, consulting: answerers, within: configuration.connectTimeout, then: configuration.connectionVerifier
                        )),
                        proxy: key.proxy,
                        forwardsPlainHTTP: false
                    ),
                    backgroundActivityLogger: configuration.logger
                ),
                connections: connections,
                evaluation: evaluation,
                proxy: key.proxy,
                trustAnswerers: answerers
            )
            state.entries[key] = Entry(
                policy: policy, requirementsRevision: revision, requirements: evaluation.requirements, client: client
            )
            client.usage.begin()
            return client
        }
    }

    /// Removes from `entries` the HTTPS clients idle longer than ``idleLifetime``, then the least recently used idle
    /// ones while ``maximumIdleClients`` or more remain (the caller is about to add one); returns their engine clients.
    private func evictIdleClients(from entries: inout [Key: Entry]) -> [HTTPClient] {
        let now = NIODeadline.now().uptimeNanoseconds
        let cutoff = now > idleLifetime ? now - idleLifetime : 0
        var expired: [Key] = []
        var idle: [(key: Key, since: UInt64)] = []
        for (key, entry) in entries {
            guard let since = entry.client.usage.idleSince else { continue }
            if since <= cutoff { expired.append(key) } else { idle.append((key, since)) }
        }
        if idle.count >= maximumIdleClients {
            idle.sort { $0.since < $1.since }
            expired += idle.prefix(idle.count - maximumIdleClients + 1).map(\.key)
        }
        return expired.compactMap { entries.removeValue(forKey: $0)?.client.client }
    }

    private static func tlsConfiguration(
        for evaluation: TLSHandshakeEvaluation,
        configuration: EngineTransport.Configuration
    ) throws -> TLSConfiguration {
        var tls = try evaluation.makeTLSConfiguration(base: configuration.tlsConfiguration)
        if let identity = configuration.clientCertificate {
            tls.certificateChain = identity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(identity.privateKey)
        }
        return tls
    }

    /// The policy's check (with the waiting requests' server-trust handlers), then the caller's own hook when there
    /// is one.
    private static func verifier(
        for evaluation: TLSHandshakeEvaluation,
        consulting answerers: ServerTrustAnswerers,
        within answerTimeout: TimeInterval,
        then next: (@Sendable (any Channel) -> EventLoopFuture<Void>)?
    ) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
        { channel in
            let verified = evaluation.verify(channel, consulting: answerers, answerTimeout: answerTimeout)
            guard let next else { return verified }
            return verified.flatMap { next(channel) }
        }
    }

    /// `hook` (when there is one), then the connection recorded as ready in `connections`.
    private static func recording(
        _ connections: ConnectionEstablishmentTracker,
        after hook: (@Sendable (any Channel) -> EventLoopFuture<Void>)?
    ) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
        { channel in
            let checked = hook?(channel) ?? channel.eventLoop.makeSucceededVoidFuture()
            return checked.map { connections.connectionReady() }
        }
    }

    /// `host` lower-cased (URL hosts are case-insensitive); returned as is when it has no upper-case letter.
    static func normalized(_ host: String) -> String {
        host.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? host.lowercased() : host
    }
}
