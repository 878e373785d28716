import Courier
import CourierTestServer
import Foundation
import SwiftASN1
import Testing
import X509

/// `SecurityPolicy.pinnedPublicKeys`: public keys pinned without a certificate (DER SubjectPublicKeyInfo or PEM
/// `PUBLIC KEY`), and loading them from files.
@Suite("SecurityPolicy public-key pins without certificates", .timeLimit(.minutes(1)))
struct SecurityPolicyPublicKeyPinTests {
    static func subjectPublicKeyInfo(_ issued: IssuedCertificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(issued.certificate.publicKey)
        return Data(serializer.serializedBytes)
    }

    static func pem(_ issued: IssuedCertificate) throws -> Data {
        Data(try issued.certificate.publicKey.serializeAsPEM().pemString.utf8)
    }

    static func policy(keys: [Data], mode: SSLPinningMode = .publicKey, roots: [IssuedCertificate]) -> SecurityPolicy {
        let policy = TestPKI.policy(mode, trustedRoots: roots)
        policy.pinnedPublicKeys = Set(keys)
        return policy
    }

    @Test func aBareKeyOfTheChainIsAccepted() async throws {
        let pki = try TestPKI()
        for key in [try Self.subjectPublicKeyInfo(pki.leaf), try Self.pem(pki.intermediate), try Self.subjectPublicKeyInfo(pki.root)] {
            let verdict = await Self.policy(keys: [key], roots: [pki.root]).evaluate(pki.presentedChain, forDomain: TestPKI.host)
            #expect(verdict.isTrusted, "\(verdict)")
        }
    }

    @Test func anotherKeyIsRejectedAndOtherModesIgnoreKeys() async throws {
        let pki = try TestPKI()
        let stranger = try TestPKI()
        let wrong = await Self.policy(keys: [try Self.pem(stranger.leaf)], roots: [pki.root]).evaluate(pki.presentedChain, forDomain: TestPKI.host)
        #expect(wrong.failureReason?.contains("no public key in the certificate chain matches") == true, "\(wrong)")

        let certificateMode = await Self.policy(keys: [try Self.subjectPublicKeyInfo(pki.leaf)], mode: .certificate, roots: [pki.root])
            .evaluate(pki.presentedChain, forDomain: TestPKI.host)
        #expect(certificateMode.failureReason?.contains("no pinned certificate") == true, "\(certificateMode)")

        let garbage = await Self.policy(keys: [Data("not a key".utf8)], roots: [pki.root]).evaluate(pki.presentedChain, forDomain: TestPKI.host)
        #expect(garbage.failureReason?.contains("no pinned certificate") == true, "\(garbage)")
    }

    @Test func aKeyPinCountsAsAPinWhenInvalidCertificatesAreAllowed() async throws {
        let pki = try TestPKI()
        let policy = Self.policy(keys: [try Self.subjectPublicKeyInfo(pki.leaf)], roots: [])
        policy.allowInvalidCertificates = true
        #expect(await policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        policy.pinnedPublicKeys = [try Self.subjectPublicKeyInfo(try TestPKI().leaf)]
        #expect(await !policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
    }

    @Test func publicKeysLoadFromDERAndPEMFiles() throws {
        let pki = try TestPKI()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let der = directory.appendingPathComponent("leaf.spki"), pem = directory.appendingPathComponent("two.pem")
        let certificate = directory.appendingPathComponent("leaf.cer")
        try Self.subjectPublicKeyInfo(pki.leaf).write(to: der)
        try (Self.pem(pki.leaf) + Data("\n".utf8) + Self.pem(pki.root)).write(to: pem)
        try pki.leaf.derBytes.write(to: certificate)

        #expect(try SecurityPolicy.publicKeys(contentsOf: der) == [try Self.subjectPublicKeyInfo(pki.leaf)])
        #expect(try SecurityPolicy.publicKeys(contentsOf: pem) == [try Self.subjectPublicKeyInfo(pki.leaf), try Self.subjectPublicKeyInfo(pki.root)])
        #expect(throws: CertificateLoadingError.notAPublicKey(url: certificate)) { try SecurityPolicy.publicKeys(contentsOf: certificate) }
        #expect {
            try SecurityPolicy.publicKeys(contentsOf: directory.appendingPathComponent("missing.pem"))
        } throws: { error in
            if case .unreadable? = error as? CertificateLoadingError { return true }
            return false
        }
    }
}
