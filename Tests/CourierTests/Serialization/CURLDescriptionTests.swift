@testable import Courier
import CourierTestServer
import Foundation
import Testing
import X509
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLRequest.cURLDescription`: the text, and the command run through bash and curl against the test server,
/// whose echo must match the echo of the same request sent by an exchange.
@Suite("cURLDescription", .timeLimit(.minutes(2)))
struct CURLDescriptionTests {
    @Test func shellQuotingKeepsEveryWordIntact() async throws {
        #expect(ShellQuoting.quote("http://127.0.0.1:8080/get") == "http://127.0.0.1:8080/get")
        #expect(ShellQuoting.quote("") == "''")
        #expect(ShellQuoting.quote("X-Trace: it's") == #"'X-Trace: it'\''s'"#)
        #expect(ShellQuoting.quote(bytes: Data([0x41, 0xFF, 0x27, 0x0A])) == #"$'A\xff\'\x0a'"#)
        let words = ["plain", "two words", "it's", "$HOME `id` \"q\" \\", "line\nbreak", "ünïcödé"]
        let echoed = try await ShellCommand.run("printf '%s\\0' " + words.map { ShellQuoting.quote($0) }.joined(separator: " "))
        #expect(echoed.status == 0)
        #expect(String(decoding: echoed.standardOutput, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init) == words)
    }

    @Test func describesMethodHeadersBodyAndOptions() throws {
        var request = try JSONRequestSerializer().request(method: "PUT", urlString: "http://127.0.0.1:1/put?q=a%20b", parameters: ["k": "it's"])
        request.setValue("abc", forHTTPHeaderField: "X-Trace")
        var options = CURLCommandOptions()
        options.credential = URLCredential(user: "user", password: "pa ss", persistence: .forSession)
        options.followsRedirects = true
        options.maximumRedirects = 3
        options.allowsInvalidCertificates = true
        let text = request.cURLDescription(options: options)
        #expect(text.hasPrefix("curl -X PUT "))
        #expect(text.contains("-H 'Content-Type: application/json'"))
        #expect(text.contains("-H 'X-Trace: abc'"))
        #expect(!text.contains("Content-Length"))
        #expect(text.contains(#"--data-binary '{"k":"it'\''s"}'"#))
        #expect(text.contains("--anyauth -u 'user:pa ss'"))
        #expect(text.contains("-L --max-redirs 3"))
        #expect(text.contains(" -k "))
        #expect(text.hasSuffix(" 'http://127.0.0.1:1/put?q=a%20b'"))
        #expect(URLRequest(url: URL(fileURLWithPath: "/")).cURLDescription.hasPrefix("curl file:///"))

        var head = URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/")))
        head.httpMethod = "HEAD"
        #expect(head.cURLDescription == "curl --head http://127.0.0.1:1/")
        var file = CURLCommandOptions()
        file.bodyFile = URL(fileURLWithPath: "/tmp/a b.bin")
        var post = head
        post.httpMethod = "POST"
        #expect(post.cURLDescription(options: file) == "curl --data-binary '@/tmp/a b.bin' http://127.0.0.1:1/")
    }

    @Test(.enabled(if: ShellCommand.curlAvailable))
    func aJSONRequestRunThroughCurlEchoesLikeTheExchange() async throws {
        var request = try JSONRequestSerializer().request(
            method: "PATCH", urlString: try await Fixtures.url("/anything/x?tag=a%20b").absoluteString,
            parameters: ["name": "O'Brien \"quoted\" $HOME", "count": 3]
        )
        request.setValue("it's `here`", forHTTPHeaderField: "X-Trace")
        try await expectSameEcho(request, keys: ["args", "json", "method", "body_sha256"], headers: ["X-Trace", "Content-Type"])
    }

    @Test(.enabled(if: ShellCommand.curlAvailable))
    func aBinaryBodyTravelsAsAnANSIWord() async throws {
        var request = URLRequest(url: try await Fixtures.url("/post"))
        request.httpMethod = "POST"
        request.httpBody = Data((1...255).map { UInt8($0) })
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        try await expectSameEcho(request, keys: ["body_sha256", "body_size"], headers: ["Content-Type"])
    }

    @Test(.enabled(if: ShellCommand.curlAvailable))
    func aMultipartFormBecomesCurlFormArguments() async throws {
        let file = Fixtures.temporaryFile("curl; form part.txt")
        try Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: try await Fixtures.url("/post").absoluteString, parameters: ["note": "@not-a-file; x=1"]
        ) { form in
            try form.appendPart(withFileURL: file, name: "upload")
        }
        let text = request.cURLDescription
        #expect(text.contains("--form-string 'note=@not-a-file; x=1'"))
        #expect(!text.contains("Content-Type: multipart"))
        try await expectSameEcho(request, keys: ["form", "files"], headers: [])
    }

    @Test(.enabled(if: ShellCommand.curlAvailable))
    func aCredentialAnswersBasicAndDigestChallenges() async throws {
        var options = CURLCommandOptions()
        options.credential = URLCredential(user: "ann", password: "s3cret:x", persistence: .forSession)
        for path in ["/basic-auth/ann/s3cret:x", "/digest-auth/auth/ann/s3cret:x", "/digest-auth/auth/ann/s3cret:x/SHA-256"] {
            let request = URLRequest(url: try await Fixtures.url(path))
            let outcome = try await ShellCommand.run(request.cURLDescription(options: options) + " -s -w '\\n%{http_code}'")
            #expect(outcome.status == 0, "\(outcome.standardError)")
            #expect(String(decoding: outcome.standardOutput, as: UTF8.self).hasSuffix("\n200"), "\(path)")
        }
    }

    @Test(.enabled(if: ShellCommand.curlAvailable))
    func pinnedPublicKeysAndAuthoritiesReachCurl() async throws {
        let server = try await TestServer.start(tls: true)
        defer { Task { try await server.shutdown() } }
        let authority = Fixtures.temporaryFile("curl-ca-\(UUID().uuidString).pem")
        let authorityDER = try #require(server.certificateAuthorityDER)
        let pem = "-----BEGIN CERTIFICATE-----\n" + authorityDER.base64EncodedString(options: .lineLength64Characters) + "\n-----END CERTIFICATE-----\n"
        try Data(pem.utf8).write(to: authority)
        defer { try? FileManager.default.removeItem(at: authority) }
        let stranger = try CertificateFactory.makeRoot(commonName: "Stranger")
        let request = URLRequest(url: server.baseURL.appendingPathComponent("get"))

        var options = CURLCommandOptions()
        options.certificateAuthorityFile = authority.path
        options.pinnedPublicKeyCertificates = [try #require(server.leafCertificateDER)]
        let pinned = try await ShellCommand.run(request.cURLDescription(options: options) + " -s -o /dev/null")
        #expect(pinned.status == 0, "\(pinned.standardError)")

        options.pinnedPublicKeyCertificates = []
        let leafKey = try Certificate(derEncoded: Array(try #require(server.leafCertificateDER))).publicKey.serializeAsPEM().pemString
        options.pinnedPublicKeys = [Data(leafKey.utf8)]
        let keyPinned = try await ShellCommand.run(request.cURLDescription(options: options) + " -s -o /dev/null")
        #expect(keyPinned.status == 0, "\(keyPinned.standardError)")

        options.pinnedPublicKeys = []
        options.pinnedPublicKeyCertificates = [stranger.derBytes]
        let wrongPin = try await ShellCommand.run(request.cURLDescription(options: options) + " -s -o /dev/null")
        #expect(wrongPin.status == 90, "curl's exit code for a public key that does not match the pin")

        let untrusted = try await ShellCommand.run(URLRequest(url: server.baseURL.appendingPathComponent("get")).cURLDescription + " -s -o /dev/null")
        #expect(untrusted.status == 60, "curl's exit code for an untrusted certificate")
        var insecure = CURLCommandOptions()
        insecure.allowsInvalidCertificates = true
        #expect(try await ShellCommand.run(request.cURLDescription(options: insecure) + " -s -o /dev/null").status == 0)
    }

    /// Sends `request` with an exchange and with curl, and compares the test server's echo: the `keys` of the
    /// JSON and the `headers` of its `headers` object.
    private func expectSameEcho(_ request: URLRequest, keys: [String], headers: [String]) async throws {
        let description = request.cURLDescription
        let curl = try await ShellCommand.run(description + " -s")
        #expect(curl.status == 0, "\(description): \(curl.standardError)")
        let curlEcho = try #require(try JSONSerialization.jsonObject(with: curl.standardOutput) as? [String: Any], "\(description)")

        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.cookieJar = nil
        let result = try await Exchange(request: request, configuration: configuration).result()
        let exchangeEcho = try Fixtures.json(result)

        for key in keys {
            let fromCurl = try JSONSerialization.data(withJSONObject: ["v": curlEcho[key] ?? NSNull()], options: .sortedKeys)
            let fromExchange = try JSONSerialization.data(withJSONObject: ["v": exchangeEcho[key] ?? NSNull()], options: .sortedKeys)
            #expect(fromCurl == fromExchange, "\(key) differs: curl \(String(decoding: fromCurl, as: UTF8.self)) vs exchange \(String(decoding: fromExchange, as: UTF8.self))")
        }
        let curlHeaders = curlEcho["headers"] as? [String: Any] ?? [:]
        let exchangeHeaders = exchangeEcho["headers"] as? [String: Any] ?? [:]
        for name in headers {
            #expect("\(curlHeaders[name] ?? "none")" == "\(exchangeHeaders[name] ?? "missing")", "header \(name)")
        }
    }
}
