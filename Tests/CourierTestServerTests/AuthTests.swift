import AsyncHTTPClient
import CourierTestServer
import Crypto
import Foundation
import Testing

@Suite struct AuthTests {
    static func basic(_ user: String, _ password: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }

    @Test func basicAuthAcceptsOnlyTheRightCredentials() async throws {
        try await withServer { (server, client) async throws in
            let ok = try await client.fetch(server, "/basic-auth/alice/s3cret", headers: [Self.basic("alice", "s3cret")])
            #expect(ok.status == 200)
            #expect(ok.json["authenticated"] as? Bool == true)
            #expect(ok.json["user"] as? String == "alice")
            let wrong = try await client.fetch(server, "/basic-auth/alice/s3cret", headers: [Self.basic("alice", "nope")])
            #expect(wrong.status == 401)
            #expect(wrong.header("www-authenticate") == #"Basic realm="Fake Realm""#)
            let missing = try await client.fetch(server, "/basic-auth/alice/s3cret")
            #expect(missing.status == 401)
            let garbage = try await client.fetch(server, "/basic-auth/alice/s3cret", headers: [("Authorization", "Basic !!!")])
            #expect(garbage.status == 401)
        }
    }

    @Test func hiddenBasicAuthAnswers404() async throws {
        try await withServer { (server, client) async throws in
            let missing = try await client.fetch(server, "/hidden-basic-auth/u/p")
            #expect(missing.status == 404)
            #expect(missing.header("www-authenticate") == nil)
            #expect(try await client.fetch(server, "/hidden-basic-auth/u/p", headers: [Self.basic("u", "p")]).status == 200)
        }
    }

    @Test func bearer() async throws {
        try await withServer { (server, client) async throws in
            #expect(try await client.fetch(server, "/bearer").status == 401)
            let ok = try await client.fetch(server, "/bearer", headers: [("Authorization", "Bearer abc")])
            #expect(ok.json["token"] as? String == "abc")
        }
    }

    /// The `key=value` parameters of a `WWW-Authenticate: Digest ...` challenge.
    static func challengeParameters(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        guard let pattern = try? NSRegularExpression(pattern: #"(\w+)=(?:"([^"]*)"|([^,\s]+))"#) else { return [:] }
        let text = header as NSString
        for match in pattern.matches(in: header, range: NSRange(location: 0, length: text.length)) {
            let key = text.substring(with: match.range(at: 1))
            let value = match.range(at: 2).location != NSNotFound ? text.substring(with: match.range(at: 2)) : text.substring(with: match.range(at: 3))
            result[key] = value
        }
        return result
    }

    static func hash(_ algorithm: String, _ text: String) -> String {
        let data = Data(text.utf8)
        switch algorithm.uppercased().replacingOccurrences(of: "-SESS", with: "") {
        case "SHA-256": return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        case "SHA-512": return SHA512.hash(data: data).map { String(format: "%02x", $0) }.joined()
        default: return Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
    }

    /// An RFC 7616 `Authorization` header answering `challenge`.
    static func digestAuthorization(
        challenge: [String: String], user: String, password: String, method: String, uri: String,
        nc: String = "00000001", cnonce: String = "0a4f113b"
    ) -> String {
        let algorithm = challenge["algorithm"] ?? "MD5"
        let realm = challenge["realm"] ?? ""
        let nonce = challenge["nonce"] ?? ""
        var ha1 = hash(algorithm, "\(user):\(realm):\(password)")
        if algorithm.lowercased().hasSuffix("-sess") { ha1 = hash(algorithm, "\(ha1):\(nonce):\(cnonce)") }
        let ha2 = hash(algorithm, "\(method):\(uri)")
        var fields = [
            #"username="\#(user)""#, #"realm="\#(realm)""#, #"nonce="\#(nonce)""#, #"uri="\#(uri)""#,
            "algorithm=\(algorithm)", #"opaque="\#(challenge["opaque"] ?? "")""#,
        ]
        if let qop = challenge["qop"] {
            let response = hash(algorithm, "\(ha1):\(nonce):\(nc):\(cnonce):\(qop):\(ha2)")
            fields += ["qop=\(qop)", "nc=\(nc)", #"cnonce="\#(cnonce)""#, #"response="\#(response)""#]
        } else {
            fields.append(#"response="\#(hash(algorithm, "\(ha1):\(nonce):\(ha2)"))""#)
        }
        return "Digest " + fields.joined(separator: ", ")
    }

    @Test(arguments: ["MD5", "SHA-256", "SHA-512", "MD5-sess", "SHA-256-sess"])
    func digestAuthWithRealComputation(algorithm: String) async throws {
        try await withServer { (server, client) async throws in
            let path = "/digest-auth/auth/bob/pa55/\(algorithm)?x=1"
            let first = try await client.fetch(server, path)
            #expect(first.status == 401)
            let header = try #require(first.header("www-authenticate"))
            #expect(header.hasPrefix("Digest "))
            let challenge = Self.challengeParameters(header)
            #expect(challenge["qop"] == "auth")
            #expect(challenge["algorithm"]?.uppercased() == algorithm.uppercased())
            #expect(challenge["stale"] == "FALSE")

            let good = Self.digestAuthorization(challenge: challenge, user: "bob", password: "pa55", method: "GET", uri: path)
            let ok = try await client.fetch(server, path, headers: [("Authorization", good)])
            #expect(ok.status == 200)
            #expect(ok.json["authenticated"] as? Bool == true)
            #expect(ok.json["user"] as? String == "bob")

            // The next nonce count on the same nonce is accepted; a replayed one is stale.
            let next = Self.digestAuthorization(challenge: challenge, user: "bob", password: "pa55", method: "GET", uri: path, nc: "00000002")
            #expect(try await client.fetch(server, path, headers: [("Authorization", next)]).status == 200)
            let replay = try await client.fetch(server, path, headers: [("Authorization", next)])
            #expect(replay.status == 401)
            #expect(Self.challengeParameters(replay.header("www-authenticate") ?? "")["stale"] == "TRUE")

            let wrong = Self.digestAuthorization(challenge: challenge, user: "bob", password: "wrong", method: "GET", uri: path, nc: "00000003")
            let rejected = try await client.fetch(server, path, headers: [("Authorization", wrong)])
            #expect(rejected.status == 401)
            #expect(Self.challengeParameters(rejected.header("www-authenticate") ?? "")["stale"] == "FALSE")
        }
    }

    @Test func digestRejectsWrongURIMethodAndUnknownNonce() async throws {
        try await withServer { (server, client) async throws in
            let path = "/digest-auth/auth/u/p"
            let challenge = Self.challengeParameters(try await client.fetch(server, path).header("www-authenticate") ?? "")
            let otherURI = Self.digestAuthorization(challenge: challenge, user: "u", password: "p", method: "GET", uri: "/other")
            #expect(try await client.fetch(server, path, headers: [("Authorization", otherURI)]).status == 401)
            let otherMethod = Self.digestAuthorization(challenge: challenge, user: "u", password: "p", method: "POST", uri: path)
            #expect(try await client.fetch(server, path, headers: [("Authorization", otherMethod)]).status == 401)
            var forged = challenge
            forged["nonce"] = "00000000000000000000000000000000"
            let unknown = Self.digestAuthorization(challenge: forged, user: "u", password: "p", method: "GET", uri: path)
            let stale = try await client.fetch(server, path, headers: [("Authorization", unknown)])
            #expect(stale.status == 401)
            #expect(Self.challengeParameters(stale.header("www-authenticate") ?? "")["stale"] == "TRUE")
            #expect(try await client.fetch(server, path, headers: [Self.basic("u", "p")]).status == 401)
        }
    }

    @Test func digestWithoutQopAndStaleAfter() async throws {
        try await withServer { (server, client) async throws in
            let legacy = "/digest-auth/none/u/p/MD5"
            let challenge = Self.challengeParameters(try await client.fetch(server, legacy).header("www-authenticate") ?? "")
            #expect(challenge["qop"] == nil)
            let answer = Self.digestAuthorization(challenge: challenge, user: "u", password: "p", method: "GET", uri: legacy)
            #expect(try await client.fetch(server, legacy, headers: [("Authorization", answer)]).status == 200)

            let limited = "/digest-auth/auth/u/p/MD5/1"
            let limitedChallenge = Self.challengeParameters(try await client.fetch(server, limited).header("www-authenticate") ?? "")
            let once = Self.digestAuthorization(challenge: limitedChallenge, user: "u", password: "p", method: "GET", uri: limited)
            #expect(try await client.fetch(server, limited, headers: [("Authorization", once)]).status == 200)
            let twice = Self.digestAuthorization(challenge: limitedChallenge, user: "u", password: "p", method: "GET", uri: limited, nc: "00000002")
            let stale = try await client.fetch(server, limited, headers: [("Authorization", twice)])
            #expect(stale.status == 401)
            #expect(Self.challengeParameters(stale.header("www-authenticate") ?? "")["stale"] == "TRUE")
            #expect(try await client.fetch(server, "/digest-auth/auth/u/p/SHA-1").status == 400)
        }
    }
}
