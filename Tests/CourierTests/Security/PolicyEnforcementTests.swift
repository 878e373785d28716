import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every policy case end to end: EngineTransport against the in-process TLS server, over HTTP/2 and HTTP/1.1.
/// Each rejection must be `URLError(.serverCertificateUntrusted)` within a second with no request reaching the server.
@Suite("Security policy enforced by the transport")
struct PolicyEnforcementTests {
    /// root → intermediate → leaf for 127.0.0.1 and localhost; the server presents leaf and intermediate.
    struct ServerPKI {
        let root: IssuedCertificate
        let intermediate: IssuedCertificate
        let leaf: IssuedCertificate
        var chain: [IssuedCertificate] { [leaf, intermediate] }

        init(leafValidity: ClosedRange<Date>? = nil, dnsNames: [String] = ["localhost"], ipAddresses: [String] = ["127.0.0.1"]) throws {
            root = try CertificateFactory.makeRoot(commonName: "Enforcement Root")
            intermediate = try CertificateFactory.makeIntermediate(commonName: "Enforcement Intermediate", issuer: root)
            let validity = leafValidity ?? Date().addingTimeInterval(-3600)...Date().addingTimeInterval(86_400)
            leaf = try CertificateFactory.makeLeaf(
                commonName: "enforcement leaf", dnsNames: dnsNames, ipAddresses: ipAddresses, issuer: intermediate,
                notBefore: validity.lowerBound, notAfter: validity.upperBound
            )
        }

        /// `policy` with this hierarchy's root trusted.
        func trusting(_ policy: SecurityPolicy) -> SecurityPolicy {
            policy.trustedRootCertificates = [root.derBytes]
            return policy
        }
    }

    @Test(arguments: [true, false])
    func defaultPolicyWithTheTestCATrusted(http2: Bool) async throws {
        let server = try await TestServer.start(tls: TestServerTLS(http2: http2))
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = [try #require(server.certificateAuthorityDER)]
        let transport = EnforcementProbe.transport(policy)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: http2)
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, host: "localhost", through: transport), http2: http2)
        #expect(server.requestLog.count == 2)
    }

    @Test(arguments: [true, false])
    func defaultPolicyWithoutTheTestCAIsRejected(http2: Bool) async throws {
        let server = try await TestServer.start(tls: TestServerTLS(http2: http2))
        let transport = EnforcementProbe.transport(.default)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: transport), server: server)
    }

    @Test(arguments: [true, false])
    func selfSignedIsRejected(http2: Bool) async throws {
        let selfSigned = try CertificateFactory.makeLeaf(
            commonName: "self-signed", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: nil
        )
        let server = try await EnforcementProbe.server(chain: [selfSigned], http2: http2)
        let transport = EnforcementProbe.transport(.default)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: transport), server: server)
    }

    @Test(arguments: [true, false])
    func expiredIsRejected(http2: Bool) async throws {
        let pki = try ServerPKI(leafValidity: Date().addingTimeInterval(-2 * 86_400)...Date().addingTimeInterval(-86_400))
        let server = try await EnforcementProbe.server(chain: pki.chain, http2: http2)
        let transport = EnforcementProbe.transport(pki.trusting(.default))
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: transport), server: server)
    }

    /// A client with a clock of its own: a leaf that expired ten minutes ago is accepted in the handshake at a
    /// validation date within its validity, and refused without one. (The engine hands over only the leaf, so its
    /// issuer is the trusted anchor here.)
    @Test(arguments: [true, false])
    func aValidationDateAppliesInTheHandshake(http2: Bool) async throws {
        let now = Date()
        let pki = try ServerPKI(leafValidity: now.addingTimeInterval(-1800)...now.addingTimeInterval(-600))
        let server = try await EnforcementProbe.server(chain: pki.chain, http2: http2)
        let dated = SecurityPolicy.default
        dated.trustedRootCertificates = [pki.intermediate.derBytes]
        dated.validationDate = now.addingTimeInterval(-1200)
        let undated = dated.copy()
        undated.validationDate = nil
        let transport = EnforcementProbe.transport(dated)
        let refusing = EnforcementProbe.transport(undated)
        defer { Task { await EnforcementProbe.stop(transport, server); try? await refusing.shutdown() } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: http2)
        let refused = try await EnforcementProbe.get(server, through: refusing)
        #expect(refused.error?.code == .serverCertificateUntrusted, "\(String(describing: refused.error))")
    }

    @Test(arguments: [true, false])
    func wrongHostIsRejectedWithThePolicysReason(http2: Bool) async throws {
        let pki = try ServerPKI(dnsNames: ["other.example"], ipAddresses: ["127.0.0.2"])
        let server = try await EnforcementProbe.server(chain: pki.chain, http2: http2)
        let transport = EnforcementProbe.transport(pki.trusting(.default))
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectRejected(
            try await EnforcementProbe.get(server, through: transport), server: server, reason: "not valid for 127.0.0.1"
        )
    }

    @Test(arguments: [true, false])
    func leafCertificatePinIsAccepted(http2: Bool) async throws {
        let pki = try ServerPKI()
        let server = try await EnforcementProbe.server(chain: pki.chain, http2: http2)
        let policy = pki.trusting(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [pki.leaf.derBytes]))
        let transport = EnforcementProbe.transport(policy)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: http2)
    }

    @Test(arguments: [true, false])
    func wrongPinIsRejectedWithinASecond(http2: Bool) async throws {
        let pki = try ServerPKI()
        let other = try CertificateFactory.makeLeaf(commonName: "other", dnsNames: ["localhost"], issuer: pki.intermediate)
        let server = try await EnforcementProbe.server(chain: pki.chain, http2: http2)
        let policy = pki.trusting(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [other.derBytes]))
        let transport = EnforcementProbe.transport(policy)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        let outcome = try await EnforcementProbe.get(server, through: transport)
        print("Wrong certificate pin rejected over \(EnforcementProbe.expectedVersion(http2: http2)) in \(outcome.elapsed): \(outcome)")
        EnforcementProbe.expectRejected(outcome, server: server, reason: "pinned")
    }

    @Test(arguments: [true, false])
    func publicKeyPinSurvivesAReissuedCertificate(http2: Bool) async throws {
        let pki = try ServerPKI()
        let reissued = try CertificateFactory.makeLeaf(
            commonName: "re-issued", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: pki.intermediate,
            reuseKey: pki.leaf.privateKey
        )
        #expect(reissued.derBytes != pki.leaf.derBytes)
        let server = try await EnforcementProbe.server(chain: [reissued, pki.intermediate], http2: http2)
        let pinned = pki.trusting(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.leaf.derBytes]))
        let certificatePinned = pki.trusting(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [pki.leaf.derBytes]))
        let transport = EnforcementProbe.transport(pinned)
        let certificateTransport = EnforcementProbe.transport(certificatePinned)
        defer { Task { try? await certificateTransport.shutdown(); await EnforcementProbe.stop(transport, server) } }
        // The certificate pin no longer matches; the key pin still does.
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: certificateTransport), server: server)
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: http2)
    }

    @Test(arguments: [true, false])
    func certificateAuthorityPins(http2: Bool) async throws {
        let pki = try ServerPKI()
        let server = try await EnforcementProbe.server(chain: pki.chain, http2: http2)
        // The leaf's issuer, pinned by certificate and by key: accepted.
        let issuerCertificate = pki.trusting(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [pki.intermediate.derBytes]))
        let issuerKey = pki.trusting(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.intermediate.derBytes]))
        // The root above the intermediate: the TLS stack's only anchor, so the handshake proves the chain reaches it.
        let rootKey = pki.trusting(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.root.derBytes]))
        // Another trusted root, pinned: the chain does not reach it.
        let otherRoot = try CertificateFactory.makeRoot(commonName: "Other Root")
        let otherRootPin = pki.trusting(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [otherRoot.derBytes]))
        otherRootPin.trustedRootCertificates.insert(otherRoot.derBytes)
        let transports = [issuerCertificate, issuerKey, rootKey, otherRootPin].map { EnforcementProbe.transport($0) }
        defer { Task { for transport in transports { try? await transport.shutdown() }; try? await server.shutdown() } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transports[0]), http2: http2)
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transports[1]), http2: http2)
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transports[2]), http2: http2)
        server.requestLog.reset()
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: transports[3]), server: server, reason: "pinned")
    }

    @Test(arguments: [true, false])
    func rootPinWhenTheRootIssuedTheLeaf(http2: Bool) async throws {
        let root = try CertificateFactory.makeRoot(commonName: "Direct Root")
        let leaf = try CertificateFactory.makeLeaf(commonName: "direct", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: root)
        let server = try await EnforcementProbe.server(chain: [leaf], http2: http2)
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [root.derBytes])
        policy.trustedRootCertificates = [root.derBytes]
        let transport = EnforcementProbe.transport(policy)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: http2)
    }

    @Test(arguments: [true, false])
    func allowInvalidCertificatesWithAPinOnASelfSignedServer(http2: Bool) async throws {
        let selfSigned = try CertificateFactory.makeLeaf(
            commonName: "self-signed", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: nil
        )
        let stranger = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: nil)
        let server = try await EnforcementProbe.server(chain: [selfSigned], http2: http2)
        func allowingInvalid(pin: IssuedCertificate) -> SecurityPolicy {
            let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [pin.derBytes])
            policy.allowInvalidCertificates = true
            return policy
        }
        let accepted = EnforcementProbe.transport(allowingInvalid(pin: selfSigned))
        let refused = EnforcementProbe.transport(allowingInvalid(pin: stranger))
        defer { Task { try? await refused.shutdown(); await EnforcementProbe.stop(accepted, server) } }
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: refused), server: server)
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: accepted), http2: http2)
    }

    @Test func allowInvalidCertificatesWithoutAPinIsRefused() async throws {
        let selfSigned = try CertificateFactory.makeLeaf(commonName: "self-signed", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: nil)
        let server = try await EnforcementProbe.server(chain: [selfSigned], http2: true)
        let policy = SecurityPolicy.default
        policy.allowInvalidCertificates = true
        let transport = EnforcementProbe.transport(policy)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: transport), server: server, reason: "without pinning")
    }
}
