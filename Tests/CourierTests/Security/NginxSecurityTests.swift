import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The nginx started by `scripts/nginx-test-server` (TLS and HTTP/2), described by its environment variables.
enum NginxServer {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["COURIER_NGINX_URL"].flatMap { URL(string: $0) }
    static let certificateAuthorityPath = environment["COURIER_NGINX_CA"]
    static let leafPath = environment["COURIER_NGINX_LEAF"]
    static let isConfigured = url != nil && certificateAuthorityPath != nil && leafPath != nil
    static let skipMessage: Comment =
        "nginx is not running: set COURIER_NGINX_URL, COURIER_NGINX_CA and COURIER_NGINX_LEAF (eval \"$(scripts/nginx-test-server start)\"; .ci/run does)"

    /// The DER certificates of the PEM file at `path`.
    static func certificates(at path: String?) throws -> Set<Data> {
        Set(try SecurityPolicy.certificates(contentsOf: URL(fileURLWithPath: try #require(path))))
    }

    static func fileURL() throws -> URL {
        try #require(url).appendingPathComponent("hello.txt")
    }
}

/// The security policy against a server nobody here wrote: nginx with TLS and HTTP/2.
@Suite("Security policy against nginx", .enabled(if: NginxServer.isConfigured, NginxServer.skipMessage))
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
        #expect(outcome.elapsed < .seconds(1))
    }
}
