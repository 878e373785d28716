import CourierTestServer
import Foundation
import Testing
import X509

/// The test certificate factory produces certificates with the extensions their roles need.
@Suite("CertificateFactory")
struct CertificateFactoryTests {
    @Test(arguments: TestKeyKind.allCases)
    func rootIsASelfSignedCertificateAuthority(key: TestKeyKind) throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root", key: key)
        let certificate = root.certificate
        #expect(certificate.issuer == certificate.subject)
        #expect(try certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        let keyUsage = try #require(try certificate.extensions.keyUsage)
        #expect(keyUsage.keyCertSign && keyUsage.cRLSign)
        #expect(certificate.publicKey == root.privateKey.publicKey)
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        let ski = try #require(try certificate.extensions.subjectKeyIdentifier)
        #expect(try certificate.extensions.authorityKeyIdentifier?.keyIdentifier == ski.keyIdentifier)
    }

    @Test func intermediateIsACertificateAuthoritySignedByItsIssuer() throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root")
        let intermediate = try CertificateFactory.makeIntermediate(commonName: "Intermediate", issuer: root, key: .rsa2048)
        #expect(intermediate.certificate.issuer == root.certificate.subject)
        #expect(try intermediate.certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(root.certificate.publicKey.isValidSignature(intermediate.certificate.signature, for: intermediate.certificate))
        #expect(
            try intermediate.certificate.extensions.authorityKeyIdentifier?.keyIdentifier
                == root.certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        )
    }

    @Test func serverLeafCarriesServerAuthAndAlternativeNames() throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root")
        let leaf = try CertificateFactory.makeLeaf(
            commonName: "leaf",
            dnsNames: ["localhost", "*.example.com"],
            ipAddresses: ["127.0.0.1", "::1"],
            issuer: root
        )
        let extensions = leaf.certificate.extensions
        #expect(try extensions.basicConstraints == .notCertificateAuthority)
        #expect(try extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        #expect(try extensions.keyUsage?.keyCertSign == false)
        let names = try #require(try extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("localhost")))
        #expect(names.contains(.dnsName("*.example.com")))
        let ipLengths = names.compactMap { name -> Int? in
            if case .ipAddress(let bytes) = name { return bytes.bytes.count }
            return nil
        }
        #expect(ipLengths == [4, 16])
        #expect(root.certificate.publicKey.isValidSignature(leaf.certificate.signature, for: leaf.certificate))
    }

    @Test func selfSignedLeafSignsItself() throws {
        let leaf = try CertificateFactory.makeLeaf(commonName: "self", dnsNames: ["localhost"], issuer: nil, key: .rsa2048)
        #expect(leaf.certificate.issuer == leaf.certificate.subject)
        #expect(leaf.certificate.publicKey.isValidSignature(leaf.certificate.signature, for: leaf.certificate))
        #expect(try leaf.certificate.extensions.keyUsage?.keyEncipherment == true)
    }

    @Test func clientCertificateCarriesClientAuth() throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root")
        let client = try CertificateFactory.makeClientCertificate(commonName: "client", issuer: root)
        #expect(try client.certificate.extensions.extendedKeyUsage?.contains(.clientAuth) == true)
        #expect(try client.certificate.extensions.extendedKeyUsage?.contains(.serverAuth) == false)
        #expect(try client.certificate.extensions.subjectAlternativeNames == nil)
    }

    @Test func reuseKeyCertifiesTheSameKey() throws {
        let first = try CertificateFactory.makeLeaf(commonName: "a", dnsNames: ["a"], issuer: nil)
        let second = try CertificateFactory.makeLeaf(commonName: "a", dnsNames: ["a"], issuer: nil, reuseKey: first.privateKey)
        #expect(second.certificate.publicKey == first.certificate.publicKey)
        #expect(second.certificate.serialNumber != first.certificate.serialNumber)
    }

    @Test func validityDatesAreHonoured() throws {
        let notBefore = Date(timeIntervalSince1970: 1_700_000_000)
        let notAfter = Date(timeIntervalSince1970: 1_800_000_000)
        let root = try CertificateFactory.makeRoot(commonName: "Dated", notBefore: notBefore, notAfter: notAfter)
        #expect(root.certificate.notValidBefore == notBefore)
        #expect(root.certificate.notValidAfter == notAfter)
    }

    @Test func invalidIPAddressThrows() {
        #expect(throws: CertificateFactoryError.invalidIPAddress("999.1.1.1")) {
            try CertificateFactory.makeLeaf(commonName: "x", dnsNames: [], ipAddresses: ["999.1.1.1"], issuer: nil)
        }
    }

    @Test(arguments: TestKeyKind.allCases)
    func encodingsRoundTrip(key: TestKeyKind) throws {
        let issued = try CertificateFactory.makeLeaf(commonName: "x", dnsNames: ["x"], issuer: nil, key: key)
        #expect(try Certificate(derEncoded: Array(issued.derBytes)) == issued.certificate)
        #expect(try Certificate(pemEncoded: issued.pemCertificate) == issued.certificate)
        #expect(try Certificate.PrivateKey(pemEncoded: issued.pemPrivateKey) == issued.privateKey)
    }
}
