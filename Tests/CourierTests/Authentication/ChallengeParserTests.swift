import Foundation
import Testing
@testable import Courier

@Suite("Authentication header parsing and digest computation")
struct ChallengeParserTests {
    @Test func parsesSeveralChallengesWithQuotedCommas() {
        let schemes = ChallengeParser.schemes(from: [
            #"Digest realm="a, b", qop="auth,auth-int", nonce="n\"1", algorithm=SHA-256, Basic realm="x""#,
        ])
        #expect(schemes.map(\.name) == ["digest", "basic"])
        #expect(schemes[0].parameters["realm"] == "a, b")
        #expect(schemes[0].parameters["qop"] == "auth,auth-int")
        #expect(schemes[0].parameters["nonce"] == "n\"1")
        #expect(schemes[0].parameters["algorithm"] == "SHA-256")
        #expect(schemes[1].realm == "x")
    }

    @Test func rfc7616ExampleMD5() throws {
        // The MD5 example of RFC 7616 §3.9.1.
        let scheme = AuthenticationScheme(name: "digest", parameters: [
            "realm": "http-auth@example.org", "qop": "auth, auth-int", "algorithm": "MD5",
            "nonce": "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
            "opaque": "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS",
        ])
        let header = try #require(AuthorizationHeader.digest(
            scheme: scheme, user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
            nonceCount: 1, clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"))
        #expect(header.contains(#"response="8ca523f5e9506fed4657c9700eebdbec""#))
        #expect(header.contains("nc=00000001"))
        #expect(header.contains(#"opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#))
    }

    @Test func rfc7616ExampleSHA256() throws {
        let scheme = AuthenticationScheme(name: "digest", parameters: [
            "realm": "http-auth@example.org", "qop": "auth, auth-int", "algorithm": "SHA-256",
            "nonce": "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
        ])
        let header = try #require(AuthorizationHeader.digest(
            scheme: scheme, user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
            nonceCount: 1, clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"))
        #expect(header.contains(#"response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1""#))
    }

    @Test func unsupportedDigestVariants() {
        let sha512 = AuthenticationScheme(name: "digest", parameters: ["nonce": "n", "algorithm": "SHA-512-256"])
        #expect(AuthorizationHeader.digest(scheme: sha512, user: "u", password: "p", method: "GET", uri: "/") == nil)
        let authIntOnly = AuthenticationScheme(name: "digest", parameters: ["nonce": "n", "qop": "auth-int"])
        #expect(AuthorizationHeader.digest(scheme: authIntOnly, user: "u", password: "p", method: "GET", uri: "/") == nil)
    }

    @Test func basicIsUTF8() {
        #expect(AuthorizationHeader.basic(user: "ü", password: "p") == "Basic " + Data("ü:p".utf8).base64EncodedString())
    }
}
