import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOSSL

/// Enforces a ``SecurityPolicy`` on a connection whose TLS handshake has just completed.
///
/// Made for AsyncHTTPClient's `http1_1ConnectionDebugInitializer` and `http2ConnectionDebugInitializer`, which run after
/// the handshake and before the connection carries a request. The TLS stack is configured from ``requirements``
/// (it verifies the path to a trusted root); ``verify(_:)`` then reads the peer's leaf certificate and asks the policy
/// about the host and the pins. On rejection it closes the channel and fails with ``ServerTrustError``.
///
/// Pins match anywhere in the validated chain: the leaf and the certificate or key that signed it are checked here;
/// a pinned root (a self-signed certificate authority, or in `.publicKey` mode a trusted root whose key is pinned) is
/// made the TLS stack's only trust anchor, so the handshake itself proves the chain leads to it. Engine limit: SwiftNIO
/// SSL exposes only the leaf through AsyncHTTPClient, so a pin on an intermediate that did not sign the leaf (the
/// middle of a chain of three or more) cannot be seen and is refused (fail closed), as is a bare public-key pin
/// (without its certificate) of a system root.
struct TLSHandshakeEvaluation: Sendable {
    /// The policy consulted on every handshake (its settings at that moment).
    let policy: SecurityPolicy
    /// The host being connected to, for host name validation; nil skips that check.
    let domain: String?
    /// What the TLS configuration of these connections verifies, captured from `policy` at creation.
    let requirements: TLSStackRequirements

    /// An evaluation of `policy` for connections to `domain`, with the policy's current TLS stack requirements.
    init(policy: SecurityPolicy, domain: String?) {
        self.policy = policy
        self.domain = domain
        self.requirements = policy.tlsStackRequirements
    }

    /// The TLS configuration connections checked by this evaluation must use (see ``TLSStackRequirements``).
    /// - Parameter base: defaults to `TLSConfiguration.makeClientConfiguration()`.
    func makeTLSConfiguration(base: TLSConfiguration = .makeClientConfiguration()) throws -> TLSConfiguration {
        try requirements.makeTLSConfiguration(base: base)
    }

    /// The policy's verdict on `peerChain` (DER, leaf first; usually only the leaf) received over a TLS configuration
    /// made from ``requirements``. Rejected when the policy's requirements have changed since.
    func evaluate(peerChain: [Data]) async -> ServerTrustEvaluation {
        await policy.evaluate(peerChain, forDomain: domain, verifiedByTLSStackWith: requirements)
    }

    /// Evaluates the peer of `channel` after its TLS handshake. Succeeds when the policy trusts the peer, or when the
    /// channel has no TLS handler (plain HTTP). Otherwise fails with ``ServerTrustError`` and closes the channel.
    ///
    /// The future is failed before the channel is closed, in the same event loop tick: AsyncHTTPClient then forgets
    /// the connection before the close can deliver anything more from it. (Closing first lets a GOAWAY that an HTTP/2
    /// server sends during the TLS close reach AsyncHTTPClient's pool while the connection is still "starting", which
    /// AsyncHTTPClient 1.37 treats as a precondition failure.)
    func verify(_ channel: any Channel) -> EventLoopFuture<Void> {
        verify(channel, consulting: nil, answerTimeout: 0)
    }

    /// ``verify(_:)``, deciding with the server-trust handler of the request that has waited longest in `answerers`
    /// when there is one: it gets the chain and the policy's verdict, and may accept, reject or apply the verdict. A
    /// handler that has not answered within `answerTimeout` seconds fails the connection with `URLError(.timedOut)`.
    func verify(_ channel: any Channel, consulting answerers: ServerTrustAnswerers?, answerTimeout: TimeInterval) -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let evaluation = self
        Task {
            let failure = await evaluation.failure(of: channel, consulting: answerers, answerTimeout: answerTimeout)
            channel.eventLoop.execute {
                guard let failure else {
                    promise.succeed(())
                    return
                }
                promise.fail(failure)
                channel.close(promise: nil)
            }
        }
        return promise.futureResult
    }

    /// Why the peer of `channel` is refused (by the policy, or by the consulted handler); nil when it is trusted or
    /// the channel has no TLS handler.
    private func failure(of channel: any Channel, consulting answerers: ServerTrustAnswerers?, answerTimeout: TimeInterval) async -> (any Error)? {
        let verdict: ServerTrustEvaluation
        var chain: [Data] = []
        do {
            let leaf = try await channel.nioSSL_peerCertificate().get()
            chain = try leaf.map { [Data(try $0.toDERBytes())] } ?? []
            verdict = await evaluate(peerChain: chain)
        } catch ChannelPipelineError.notFound {
            return nil  // no TLS handler: a plain HTTP connection, nothing to evaluate
        } catch {
            verdict = .rejected(reason: "the peer certificate cannot be read (\(error))")
        }
        let policyFailure: ServerTrustError? = verdict.failureReason.map { ServerTrustError(domain: domain, reason: $0) }
        guard let (handler, port) = answerers?.oldest else { return policyFailure }
        let host = domain ?? "the server"
        let trust = ServerTrust(host: host, port: port, certificateChain: chain, evaluation: verdict)
        switch await firstAnswer(within: answerTimeout, of: { await handler(trust) }) {
        case nil:
            return URLError(.timedOut, userInfo: [
                NSLocalizedDescriptionKey: "The server-trust challenge for \(host) was not answered within the connect timeout (\(answerTimeout) s).",
            ])
        case .accept?:
            return nil
        case .reject?:
            return ServerTrustError(domain: domain, reason: "the server-trust challenge was answered with a rejection (the policy's verdict: \(verdict))")
        case .cancel?:
            return URLError(.cancelled, userInfo: [NSLocalizedDescriptionKey: "The server-trust challenge for \(host) was cancelled."])
        case .performDefaultHandling?:
            return policyFailure
        }
    }

    /// `error` from a connection attempt, explained in the policy's terms: when the TLS stack's only anchors are the
    /// pinned certificate authorities, its certificate verification failure means that the chain leads to none of
    /// them, and becomes a ``ServerTrustError`` saying so. Any other error is returned unchanged.
    func explainingHandshakeFailure(_ error: any Error) -> any Error {
        guard !requirements.pinnedAnchors.isEmpty, !(error is ServerTrustError),
            TransportError.classify(error).0 == .serverCertificateUntrusted
        else { return error }
        let pinned = policy.pinningMode == .publicKey ? "whose public key is pinned" : "that is pinned"
        return ServerTrustError(
            domain: domain,
            reason: "the certificate chain does not lead to a certificate authority \(pinned) (the TLS stack found no path to one)"
        )
    }

    /// A closure for AsyncHTTPClient's connection debug initializers that runs ``verify(_:)``.
    var connectionInitializer: @Sendable (any Channel) -> EventLoopFuture<Void> {
        { [self] channel in verify(channel) }
    }
}
