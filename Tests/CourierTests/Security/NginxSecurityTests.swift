import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The nginx of `scripts/nginx-test-server` (TLS and HTTP/2), described by the variables it exports; started by the
/// suites' condition (see ``ExternalServer``).
enum NginxServer {
    static var environment: [String: String] { ExternalServers.nginx.variables }
    static var url: URL? { environment["COURIER_NGINX_URL"].flatMap { URL(string: $0) } }
    static var certificateAuthorityPath: String? { environment["COURIER_NGINX_CA"] }
    static var leafPath: String? { environment["COURIER_NGINX_LEAF"] }
    static let skipMessage = ExternalServers.nginx.skipMessage

    /// Starts nginx if needed; whether it runs with everything the suites need.
    static func isRunning() async -> Bool {
        await ExternalServers.nginx.isRunning() && url != nil && certificateAuthorityPath != nil && leafPath != nil
    }

    /// The DER certificates of the PEM file at `path`.
    static func certificates(at path: String?) throws -> Set<Data> {
        Set(try SecurityPolicy.certificates(contentsOf: URL(fileURLWithPath: try #require(path))))
    }

    static func fileURL() throws -> URL {
        try #require(url).appendingPathComponent("hello.txt")
    }
}

/// The security policy against a server nobody here wrote: nginx with TLS and HTTP/2.
@Suite("Security policy against nginx", .enabled(NginxServer.skipMessage) { await NginxServer.isRunning() })
struct NginxSecurityTests {
    @Test func defaultPolicyWithTheNginxCATrustedOverHTTP2() async throws {
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        let transport = EnforcementProbe.transport(policy)
        defer { Task { try? await transport.shutdown() } }
        let outcome = await EnforcementProbe.get(try NginxServer.fileURL(), through: transport)
        #expect(outcome.status == 200, "\(outcome)")
        #expect(outcome.httpVersion == "HTTP/2.0", "\(outcome)")
    }

    @Test func certificatePinIsAccepted() async throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: try NginxServer.certificates(at: NginxServer.leafPath))
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        let transport = EnforcementProbe.transport(policy)
        defer { Task { try? await transport.shutdown() } }
        let outcome = await EnforcementProbe.get(try NginxServer.fileURL(), through: transport)
        #expect(outcome.status == 200, "\(outcome)")
        #expect(outcome.httpVersion == "HTTP/2.0", "\(outcome)")
    }

    @Test func defaultPolicyWithoutTheNginxCAIsRejected() async throws {
        let transport = EnforcementProbe.transport(.default)
        defer { Task { try? await transport.shutdown() } }
        let outcome = await EnforcementProbe.get(try NginxServer.fileURL(), through: transport)
        #expect(outcome.error?.code == .serverCertificateUntrusted, "\(outcome)")
    }

    @Test func wrongPinIsRejectedFast() async throws {
        let stranger = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: ["localhost"], issuer: nil)
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [stranger.derBytes])
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        let transport = EnforcementProbe.transport(policy)
        defer { Task { try? await transport.shutdown() } }
        let outcome = await EnforcementProbe.get(try NginxServer.fileURL(), through: transport)
        print("Wrong public-key pin against nginx rejected in \(outcome.elapsed): \(outcome)")
        #expect(outcome.error?.code == .serverCertificateUntrusted, "\(outcome)")
        #expect(outcome.error?.localizedDescription.contains("pinned") == true, "\(outcome)")
        // Refused at the handshake, not by a timeout: well under the 10 s connect timeout even on a machine busy
        // enough to slow a debug build's handshake several times over (it takes about 50 ms here when idle).
        #expect(outcome.elapsed < .seconds(4))
    }
}
