import AsyncHTTPClient
import CourierTestServer
import Foundation
import Testing

@Suite struct CookieAndCacheTests {
    @Test func cookiesEchoesTheCookieHeader() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/cookies", headers: [("Cookie", "a=1; b=two")])
            #expect(response.json["cookies"] as? [String: String] == ["a": "1", "b": "two"])
            #expect(try await client.fetch(server, "/cookies").json["cookies"] as? [String: String] == [:])
        }
    }

    @Test func cookiesSetRedirectsWithSetCookie() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/cookies/set?k1=v1&k2=v2")
            #expect(response.status == 302)
            #expect(response.header("location") == "/cookies")
            #expect(response.headers["set-cookie"] == ["k1=v1; Path=/", "k2=v2; Path=/"])
            let path = try await client.fetch(server, "/cookies/set/name/value")
            #expect(path.headers["set-cookie"] == ["name=value; Path=/"])
            #expect(try await client.fetch(server, "/cookies/set?bad%3Bname=1").status == 400)
            #expect(try await client.fetch(server, "/cookies/set?n=a%3Bb").status == 400)
        }
    }

    @Test func cookiesDeleteExpiresThem() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/cookies/delete?k1&k2")
            #expect(response.status == 302)
            let cookies = response.headers["set-cookie"]
            #expect(cookies.count == 2)
            #expect(cookies.allSatisfy { $0.contains("Max-Age=0") && $0.contains("1970") })
            #expect(cookies.first?.hasPrefix("k1=;") == true)
        }
    }

    @Test func setAttrsReturnsTheRawSetCookie() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(
                server, "/cookies/set-attrs?name=s&value=1&path=/p&domain=example.com&max_age=60&secure=1&httponly=1&samesite=Lax")
            #expect(response.status == 200)
            let expected = "s=1; Path=/p; Domain=example.com; Max-Age=60; SameSite=Lax; Secure; HttpOnly"
            #expect(response.header("set-cookie") == expected)
            #expect(response.json["set-cookie"] as? String == expected)
            let expires = try await client.fetch(server, "/cookies/set-attrs?name=e&value=x&expires=Wed,%2021%20Oct%202015%2007:28:00%20GMT")
            #expect(expires.header("set-cookie") == "e=x; Expires=Wed, 21 Oct 2015 07:28:00 GMT")
            #expect(try await client.fetch(server, "/cookies/set-attrs?value=1").status == 400)
        }
    }

    @Test func etagConditionals() async throws {
        try await withServer { (server, client) async throws in
            let plain = try await client.fetch(server, "/etag/abc")
            #expect(plain.status == 200)
            #expect(plain.header("etag") == "\"abc\"")
            #expect(try await client.fetch(server, "/etag/abc", headers: [("If-None-Match", "\"abc\"")]).status == 304)
            #expect(try await client.fetch(server, "/etag/abc", headers: [("If-None-Match", "\"x\", W/\"abc\"")]).status == 304)
            #expect(try await client.fetch(server, "/etag/abc", headers: [("If-None-Match", "*")]).status == 304)
            #expect(try await client.fetch(server, "/etag/abc", headers: [("If-None-Match", "\"other\"")]).status == 200)
            #expect(try await client.fetch(server, "/etag/abc", headers: [("If-Match", "\"other\"")]).status == 412)
            #expect(try await client.fetch(server, "/etag/abc", headers: [("If-Match", "\"abc\"")]).status == 200)
            let notModified = try await client.fetch(server, "/etag/abc", headers: [("If-None-Match", "\"abc\"")])
            #expect(notModified.header("etag") == "\"abc\"")
            #expect(notModified.body.readableBytes == 0)
        }
    }

    @Test func cacheEndpoints() async throws {
        try await withServer { (server, client) async throws in
            let first = try await client.fetch(server, "/cache")
            #expect(first.status == 200)
            let lastModified = try #require(first.header("last-modified"))
            #expect(lastModified.hasSuffix(" GMT"))
            #expect(first.header("etag") != nil)
            #expect(try await client.fetch(server, "/cache", headers: [("If-Modified-Since", lastModified)]).status == 304)
            #expect(try await client.fetch(server, "/cache", headers: [("If-None-Match", "\"x\"")]).status == 304)
            let maxAge = try await client.fetch(server, "/cache/30")
            #expect(maxAge.header("cache-control") == "public, max-age=30")
        }
    }

    @Test func responseHeadersAreSetAndEchoed() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/response-headers?X-One=1&X-Two=a&X-Two=b")
            #expect(response.status == 200)
            #expect(response.header("x-one") == "1")
            #expect(response.headers["x-two"] == ["a", "b"])
            let json = response.json
            #expect(json["X-One"] as? String == "1")
            #expect(json["X-Two"] as? [String] == ["a", "b"])
            #expect(json["Content-Length"] as? String == String(response.body.readableBytes))
        }
    }
}
