import Courier
import CourierTestServer
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The security and network steps: pinning against the tour's TLS server, and reachability.
extension Tour {
    func pinAccepted(_ log: TourLog) async throws -> String {
        let secure = servers.secure
        guard let authority = secure.certificateAuthorityDER, let leaf = secure.leafCertificateDER else {
            throw TourStepFailure("the TLS server has no generated certificates")
        }
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [leaf])
        policy.trustedRootCertificates = [authority]
        log.note("pinned: the server's leaf certificate, SHA-256 \(TourDigest.sha256(leaf).prefix(16))…")
        let manager = securedManager(policy)
        defer { manager.invalidateSessionCancelingTasks(true) }
        let protocolName = Mutex<String?>(nil)
        manager.setTaskDidFinishCollectingMetricsBlock { _, _, metrics in
            protocolName.withLock { $0 = metrics.transactionMetrics.last?.networkProtocolName }
        }
        let (_, response) = try await manager.get("get")
        guard response.statusCode == 200 else { throw TourStepFailure("GET /get → \(response.statusCode)") }
        let over = protocolName.withLock { $0 }.map { " over \($0)" } ?? ""
        return "GET \(secure.baseURL.absoluteString)/get → 200\(over) with the certificate pinned"
    }

    func wrongPinRejected(_ log: TourLog) async throws -> String {
        let secure = servers.secure
        guard let authority = secure.certificateAuthorityDER else { throw TourStepFailure("the TLS server has no generated CA") }
        let stranger = try CertificateFactory.makeLeaf(commonName: "someone else", dnsNames: ["localhost"], issuer: nil)
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [stranger.derBytes])
        policy.trustedRootCertificates = [authority]
        log.note("pinned: the public key of an unrelated certificate (\"someone else\")")
        let manager = securedManager(policy)
        defer { manager.invalidateSessionCancelingTasks(true) }
        let requestsBefore = secure.requestLog.count
        let started = ContinuousClock.now
        do {
            _ = try await manager.get("get")
        } catch let error as URLError where error.code == .serverCertificateUntrusted {
            let milliseconds = Int(((ContinuousClock.now - started).seconds * 1000).rounded())
            log.note("refused: \(error.localizedDescription)")
            guard secure.requestLog.count == requestsBefore else { throw TourStepFailure("a request reached the server anyway") }
            return "URLError(.serverCertificateUntrusted) during the handshake in \(milliseconds) ms; no request reached the server"
        }
        throw TourStepFailure("the request was not refused")
    }

    /// A session manager for the TLS server enforcing `policy`.
    private func securedManager(_ policy: SecurityPolicy) -> HTTPSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = policy
        return HTTPSessionManager(baseURL: servers.secure.baseURL, configuration: configuration)
    }

    func reachability(_ log: TourLog) async throws -> String {
        // The session manager watches its base URL's host; the shared manager watches the default route.
        let loopback = session.reachabilityManager
        let anyNetwork = NetworkReachabilityManager.shared
        loopback.startMonitoring()
        anyNetwork.startMonitoring()
        defer {
            loopback.stopMonitoring()
            anyNetwork.stopMonitoring()
        }
        try? await waitUntil(seconds: 2) {
            loopback.networkReachabilityStatus != .unknown && anyNetwork.networkReachabilityStatus != .unknown
        }
        let host = servers.plain.baseURL.host ?? "?"
        log.note("\(host): \(loopback.networkReachabilityStatus)")
        log.note("the network in general (default route): \(anyNetwork.networkReachabilityStatus)")
        guard loopback.isReachable else {
            throw TourStepFailure("\(host) reported \(loopback.networkReachabilityStatus), expected reachable")
        }
        return "\(host) is reachable, as the kernel's routing table says (netlink)"
    }
}
