@testable import Courier
import AsyncHTTPClient
import Foundation
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

/// The system's roots as a hashed directory (`SystemTrustRoots`): looked up by BoringSSL when a handshake needs an
/// issuer, instead of a bundle parsed into every TLS context.
@Suite("Security: the system's roots looked up from a hashed directory")
struct SystemTrustRootsTests {
    @Test func hashedNamesAreRecognised() {
        #expect(SystemTrustRoots.isHashedName("002c0b4f.0"))
        #expect(SystemTrustRoots.isHashedName("9d04f354.12"))
        for name in ["ca-certificates.crt", "002C0B4F.0", "002c0b4f", "002c0b4f.", "02c0b4f.0", "002c0b4g.0", "002c0b4f.0.pem", "002c0b4f.x"] {
            #expect(!SystemTrustRoots.isHashedName(name), "\(name)")
        }
    }

    /// OpenSSL's subject hash of the certificate at `path` (`openssl x509 -hash`), the name `c_rehash` gives it.
    static func subjectHash(ofCertificateAt path: String) throws -> String {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "x509", "-hash", "-noout", "-in", path]
        let output = Pipe()
        openssl.standardOutput = output
        try openssl.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        openssl.waitUntilExit()
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    #if os(Linux)
    @Test func onThisSystemTheDirectoryIsUsedWhereItIsHashed() throws {
        let expected: NIOSSLTrustRoots = SystemTrustRoots.hashedDirectory(at: "/etc/ssl/certs") != nil ? .file("/etc/ssl/certs") : .default
        #expect(SystemTrustRoots.roots == expected)
        let configuration = try TLSStackRequirements(verifiesChain: true, additionalTrustRoots: []).makeTLSConfiguration()
        #expect(configuration.trustRoots == expected)
        let empty = try Fixtures.temporaryDirectory("unhashed-roots")
        defer { try? FileManager.default.removeItem(at: empty) }
        try Data("not a certificate".utf8).write(to: empty.appendingPathComponent("ca-certificates.crt"))
        #expect(SystemTrustRoots.hashedDirectory(at: empty.path) == nil, "no hashed name: the bundle stays")
    }

    /// A directory holding nginx's root under its hashed name verifies nginx's chain; without it, the handshake fails.
    @Test func aHashedDirectoryVerifiesAChainAndAnUnrelatedOneDoesNot() async throws {
        guard await NginxServer.isRunning() else { Issue.record(NginxServer.skipMessage); return }
        let ca = try #require(NginxServer.certificateAuthorityPath)
        let hash = try Self.subjectHash(ofCertificateAt: ca)
        try #require(SystemTrustRoots.isHashedName("\(hash).0"), "openssl printed \(hash)")
        let trusted = try Fixtures.temporaryDirectory("hashed-roots")
        let unrelated = try Fixtures.temporaryDirectory("hashed-roots-other")
        defer {
            try? FileManager.default.removeItem(at: trusted)
            try? FileManager.default.removeItem(at: unrelated)
        }
        try FileManager.default.copyItem(atPath: ca, toPath: trusted.appendingPathComponent("\(hash).0").path)
        try FileManager.default.copyItem(atPath: ca, toPath: unrelated.appendingPathComponent("ffffffff.0").path)
        let url = try #require(NginxServer.url).appendingPathComponent("hello.txt").absoluteString
        for (directory, succeeds) in [(trusted, true), (unrelated, false)] {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(directory.path)
            tls.certificateVerification = .noHostnameVerification
            let client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: .init(tlsConfiguration: tls))
            let outcome: Result<HTTPResponseStatus, any Error>
            do {
                outcome = .success(try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(2)).status)
            } catch {
                outcome = .failure(error)
            }
            try await client.shutdown()
            if succeeds {
                #expect(try outcome.get() == .ok)
            } else {
                #expect(throws: (any Error).self, "the root is not under its hash: no issuer found") { try outcome.get() }
            }
        }
    }
    #endif
}
