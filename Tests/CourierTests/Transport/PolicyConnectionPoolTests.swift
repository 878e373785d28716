import Courier
import CourierTestServer
import Foundation
import NIOCore
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Connections are pooled per policy and host; failed handshakes leave nothing open.
@Suite("Connection pools per security policy", .serialized)
struct PolicyConnectionPoolTests {
    /// Counts the connections whose handshake reached the transport's own hook.
    final class HandshakeCounter: Sendable {
        let count = Atomic<Int>(0)
        var verifier: @Sendable (any Channel) -> EventLoopFuture<Void> {
            { [self] channel in
                count.add(1, ordering: .relaxed)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
        }
    }

    static func trusting(_ server: TestServer, pins: Set<Data> = []) throws -> SecurityPolicy {
        let policy = SecurityPolicy(pinningMode: pins.isEmpty ? .none : .certificate, pinnedCertificates: pins)
        policy.trustedRootCertificates = [try #require(server.certificateAuthorityDER)]
        return policy
    }

    @Test func twoPoliciesNeverShareAConnection() async throws {
        let server = try await TestServer.start(tls: .generated)
        let wrongPin = try CertificateFactory.makeLeaf(commonName: "other", dnsNames: ["localhost"], issuer: nil)
        let counter = HandshakeCounter()
        let good = EnforcementProbe.transport(try Self.trusting(server)) { $0.connectionVerifier = counter.verifier }
        let pinned = EnforcementProbe.transport(try Self.trusting(server, pins: [wrongPin.derBytes]))
        defer { Task { try? await pinned.shutdown(); await EnforcementProbe.stop(good, server) } }

        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: good), http2: true)
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: good), http2: true)
        #expect(counter.count.load(ordering: .relaxed) == 1, "the second request reuses the first connection")
        // The good transport's pooled connection to the same server is not used by the other policy.
        server.requestLog.reset()
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: pinned), server: server, reason: "pinned")
    }

    @Test func perHostPoliciesOverrideTheDefault() async throws {
        let server = try await TestServer.start(tls: .generated)
        let stranger = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: ["localhost"], issuer: nil)
        let transport = EnforcementProbe.transport(try Self.trusting(server)) { configuration in
            // A certificate pin that the server's leaf does not match; the server's CA is trusted.
            configuration.securityPolicies = ["LocalHost": try? Self.trusting(server, pins: [stranger.derBytes])].compactMapValues { $0 }
        }
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        // Same server and port: 127.0.0.1 uses the default policy, localhost its own (matched without case).
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: true)
        server.requestLog.reset()
        EnforcementProbe.expectRejected(
            try await EnforcementProbe.get(server, host: "localhost", through: transport), server: server, reason: "pinned"
        )
    }

    @Test func changingTheTrustRootsIsNotBypassedByAPooledConnection() async throws {
        let server = try await TestServer.start(tls: .generated)
        let policy = try Self.trusting(server)
        let transport = EnforcementProbe.transport(policy)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: true)
        policy.trustedRootCertificates = []
        server.requestLog.reset()
        EnforcementProbe.expectRejected(try await EnforcementProbe.get(server, through: transport), server: server)
        policy.trustedRootCertificates = [try #require(server.certificateAuthorityDER)]
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: true)
    }

    @Test func shutdownClosesEveryPool() async throws {
        let server = try await TestServer.start(tls: .generated)
        let transport = EnforcementProbe.transport(try Self.trusting(server))
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: true)
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, host: "localhost", through: transport), http2: true)
        try await transport.shutdown()
        try await transport.shutdown()
        let afterShutdown = try await EnforcementProbe.get(server, host: "localhost", through: transport)
        #expect(afterShutdown.error?.code == .cancelled, "\(afterShutdown)")
        try await server.shutdown()
    }

    @Test(arguments: [true, false])
    func twoHundredWrongPinRequestsLeaveNoDescriptorOpen(http2: Bool) async throws {
        let server = try await TestServer.start(tls: TestServerTLS(http2: http2))
        let wrongPin = try CertificateFactory.makeLeaf(commonName: "other", dnsNames: ["localhost"], issuer: nil)
        let transport = EnforcementProbe.transport(try Self.trusting(server, pins: [wrongPin.derBytes]))
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        _ = try await EnforcementProbe.get(server, through: transport)  // warm-up: the client and its TLS context exist
        let before = ProcessStats.openDescriptors()
        var times: [Duration] = []
        for _ in 0..<200 {
            let outcome = try await EnforcementProbe.get(server, through: transport)
            #expect(outcome.error?.code == .serverCertificateUntrusted, "\(outcome)")
            times.append(outcome.elapsed)
        }
        _ = await eventually(timeout: .seconds(2)) { ProcessStats.openDescriptors() <= before }
        let after = ProcessStats.openDescriptors()
        times.sort()
        print("200 wrong-pin requests (\(EnforcementProbe.expectedVersion(http2: http2))): open fds before \(before), after \(after); rejection median \(times[100]), max \(times[199])")
        #expect(after <= before)
        #expect(times[199] < .seconds(1))
        #expect(server.requestLog.count == 0)
    }
}

/// Host names in brackets (IPv6 literals) reach the policy as the address it must find in the certificate.
@Suite("Security policy with an IPv6 literal host")
struct IPv6LiteralHostTests {
    @Test func ipv6LiteralIsCheckedAgainstTheIPAddressName() async throws {
        let server = try await TestServer.start(tls: .generated, host: "::1")
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = [try #require(server.certificateAuthorityDER)]
        let transport = EnforcementProbe.transport(policy)
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, host: "[::1]", through: transport), http2: true)
    }
}
