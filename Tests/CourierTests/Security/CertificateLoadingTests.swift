import Courier
import CourierTestServer
import Foundation
import Testing

/// Loading pinned certificates and trust roots from bundles, directories and files.
@Suite("Certificate loading")
struct CertificateLoadingTests {
    /// A fresh temporary directory, removed after `body`.
    private func withTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    @Test func directoryLoadsDERAndPEMFilesOfTheKnownExtensions() throws {
        let der = try CertificateFactory.makeRoot(commonName: "DER")
        let pemA = try CertificateFactory.makeRoot(commonName: "PEM A")
        let pemB = try CertificateFactory.makeRoot(commonName: "PEM B")
        let crt = try CertificateFactory.makeRoot(commonName: "CRT")
        let ignored = try CertificateFactory.makeRoot(commonName: "Ignored")
        try withTemporaryDirectory { directory in
            try der.derBytes.write(to: directory.appendingPathComponent("a.cer"))
            try (pemA.pemCertificate + pemB.pemCertificate).write(to: directory.appendingPathComponent("bundle.pem"), atomically: true, encoding: .utf8)
            try crt.pemCertificate.write(to: directory.appendingPathComponent("c.CRT"), atomically: true, encoding: .utf8)
            try ignored.derBytes.write(to: directory.appendingPathComponent("notes.txt"))
            let loaded = try SecurityPolicy.certificates(inDirectory: directory)
            #expect(loaded == [der.derBytes, pemA.derBytes, pemB.derBytes, crt.derBytes])
        }
    }

    @Test func directoryWithAGarbageCertificateThrows() throws {
        try withTemporaryDirectory { directory in
            let garbage = directory.appendingPathComponent("broken.pem")
            try Data("hello".utf8).write(to: garbage)
            #expect(throws: CertificateLoadingError.notACertificate(url: garbage)) {
                try SecurityPolicy.certificates(inDirectory: directory)
            }
        }
    }

    @Test func missingDirectoryAndFileThrowUnreadable() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        do {
            _ = try SecurityPolicy.certificates(inDirectory: missing)
            Issue.record("expected an error")
        } catch {
            guard case .unreadable(let url, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(url == missing)
        }
        do {
            _ = try SecurityPolicy.certificates(contentsOf: missing.appendingPathComponent("a.cer"))
            Issue.record("expected an error")
        } catch {
            guard case .unreadable = error else { Issue.record("wrong error \(error)"); return }
            #expect(error.description.contains("cannot read"))
        }
    }

    @Test func singleFileReturnsEveryCertificateInOrder() throws {
        let first = try CertificateFactory.makeRoot(commonName: "First")
        let second = try CertificateFactory.makeRoot(commonName: "Second")
        let key = try CertificateFactory.makeRoot(commonName: "Key only")
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("ca.pem")
            // A private key block in the same file is skipped.
            try (first.pemCertificate + key.pemPrivateKey + second.pemCertificate).write(to: file, atomically: true, encoding: .utf8)
            #expect(try SecurityPolicy.certificates(contentsOf: file) == [first.derBytes, second.derBytes])
            let keyOnly = directory.appendingPathComponent("key.pem")
            try key.pemPrivateKey.write(to: keyOnly, atomically: true, encoding: .utf8)
            #expect(throws: CertificateLoadingError.notACertificate(url: keyOnly)) {
                try SecurityPolicy.certificates(contentsOf: keyOnly)
            }
        }
    }

    @Test func bundleLoadsEveryCerFileAndSkipsGarbage() throws {
        let der = try CertificateFactory.makeRoot(commonName: "Bundle DER")
        let pem = try CertificateFactory.makeRoot(commonName: "Bundle PEM")
        let notCer = try CertificateFactory.makeRoot(commonName: "Bundle PEM extension")
        try withTemporaryDirectory { directory in
            try der.derBytes.write(to: directory.appendingPathComponent("server.cer"))
            try pem.pemCertificate.write(to: directory.appendingPathComponent("ca.cer"), atomically: true, encoding: .utf8)
            try notCer.pemCertificate.write(to: directory.appendingPathComponent("other.pem"), atomically: true, encoding: .utf8)
            try Data("garbage".utf8).write(to: directory.appendingPathComponent("garbage.cer"))
            let bundle = try #require(Bundle(path: directory.path))
            #expect(SecurityPolicy.certificates(in: bundle) == [der.derBytes, pem.derBytes])
        }
    }

    @Test func loadingErrorDescriptionsNameTheFile() {
        let url = URL(fileURLWithPath: "/tmp/x.cer")
        #expect(CertificateLoadingError.notACertificate(url: url).description.contains("/tmp/x.cer"))
        #expect(CertificateLoadingError.unreadable(url: url, underlying: "denied").description.contains("denied"))
    }
}
