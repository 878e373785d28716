import Courier
import CourierTestServer
import Foundation
import Testing

/// `SecurityPolicy` as `AFSecurityPolicy` behaves: copyable (NSCopying) and archivable (here `Codable`), with a
/// validation date for fixed chains, and the default pins read from `Bundle.main`.
@Suite("SecurityPolicy: copying, coding, validation date, default pins")
struct SecurityPolicyCopyingAndCodingTests {
    static func configuredPolicy() throws -> (SecurityPolicy, TestPKI) {
        let pki = try TestPKI()
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.leaf.derBytes, pki.intermediate.derBytes])
        policy.pinnedPublicKeys = [Data("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8)]
        policy.trustedRootCertificates = [pki.root.derBytes]
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        policy.validationDate = Date(timeIntervalSince1970: 1_800_000_000)
        return (policy, pki)
    }

    static func expectSameSettings(_ a: SecurityPolicy, _ b: SecurityPolicy) {
        #expect(a.pinningMode == b.pinningMode)
        #expect(a.pinnedCertificates == b.pinnedCertificates)
        #expect(a.pinnedPublicKeys == b.pinnedPublicKeys)
        #expect(a.trustedRootCertificates == b.trustedRootCertificates)
        #expect(a.allowInvalidCertificates == b.allowInvalidCertificates)
        #expect(a.validatesDomainName == b.validatesDomainName)
        #expect(a.validationDate == b.validationDate)
    }

    @Test func aCopyHasTheSameSettingsAndLivesApart() throws {
        let (policy, pki) = try Self.configuredPolicy()
        let copy = policy.copy()
        #expect(copy !== policy)
        Self.expectSameSettings(policy, copy)
        let viaNSCopying = try #require(policy.copy(with: nil) as? SecurityPolicy)
        Self.expectSameSettings(policy, viaNSCopying)

        copy.pinnedCertificates = [pki.root.derBytes]
        copy.validatesDomainName = true
        copy.validationDate = nil
        #expect(policy.pinnedCertificates == [pki.leaf.derBytes, pki.intermediate.derBytes])
        #expect(!policy.validatesDomainName)
        #expect(policy.validationDate != nil)
    }

    @Test func itRoundTripsThroughJSON() throws {
        let (policy, _) = try Self.configuredPolicy()
        let encoded = try JSONEncoder().encode(policy)
        let decoded = try JSONDecoder().decode(SecurityPolicy.self, from: encoded)
        Self.expectSameSettings(policy, decoded)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["pinningMode"] as? String == "publicKey")

        // A minimal archive takes the defaults for what it does not say.
        let minimal = try JSONDecoder().decode(SecurityPolicy.self, from: Data(#"{"pinningMode":"none"}"#.utf8))
        Self.expectSameSettings(minimal, .default)
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(SecurityPolicy.self, from: Data(#"{"pinningMode":"sometimes"}"#.utf8))
        }
    }

    /// A leaf that expired ten minutes ago is trusted at a date within its validity, and a valid chain is refused at a
    /// date after it.
    @Test func theValidationDateDecidesExpiry() async throws {
        let now = Date()
        let expired = try TestPKI(leafValidity: now.addingTimeInterval(-1800)...now.addingTimeInterval(-600))
        let policy = TestPKI.policy(.none, trustedRoots: [expired.root])
        #expect(await !policy.evaluateServerTrust(expired.presentedChain, forDomain: TestPKI.host))
        policy.validationDate = now.addingTimeInterval(-1200)
        let verdict = await policy.evaluate(expired.presentedChain, forDomain: TestPKI.host)
        #expect(verdict.isTrusted, "\(verdict)")

        let current = try TestPKI()
        let later = TestPKI.policy(.none, trustedRoots: [current.root])
        #expect(await later.evaluateServerTrust(current.presentedChain, forDomain: TestPKI.host))
        later.validationDate = now.addingTimeInterval(10 * 86_400)
        let refused = await later.evaluate(current.presentedChain, forDomain: TestPKI.host)
        #expect(!refused.isTrusted)
        #expect(refused.failureReason?.contains("expired") == true, "\(refused)")
    }

    /// On Linux `Bundle.main` is the directory of the executable (here the test runner), and its resources are the
    /// files beside it: a `.cer` placed there is pinned by `init(pinningMode:)`.
    @Test func theDefaultPinsAreTheCerFilesBesideTheExecutable() throws {
        let pki = try TestPKI()
        let directory = try #require(Bundle.main.executableURL?.deletingLastPathComponent())
        #expect(Bundle.main.bundleURL.standardizedFileURL == directory.standardizedFileURL)
        // Asked once before the file exists: a later answer must still see it (Bundle caches its own lookups).
        #expect(!SecurityPolicy.defaultPinnedCertificates.contains(pki.leaf.derBytes))
        let file = directory.appendingPathComponent("courier-default-pin-\(UUID().uuidString).cer")
        try pki.leaf.derBytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(SecurityPolicy.defaultPinnedCertificates.contains(pki.leaf.derBytes))
        #expect(SecurityPolicy(pinningMode: .certificate).pinnedCertificates.contains(pki.leaf.derBytes))
        try FileManager.default.removeItem(at: file)
        #expect(!SecurityPolicy(pinningMode: .certificate).pinnedCertificates.contains(pki.leaf.derBytes))
    }
}
