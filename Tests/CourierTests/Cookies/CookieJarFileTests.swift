import Foundation
import Testing
@testable import Courier

@Suite("Cookie jar files")
struct CookieJarFileTests {
    static let origin = URL(string: "https://shop.example/cart")!

    static func filledJar(now: Date) -> CookieJar {
        let jar = CookieJar()
        jar.store(setCookieHeaders: [
            "session=s1; Path=/",
            "remember=r1; Max-Age=3600; Path=/; Secure; HttpOnly",
            "wide=w1; Domain=shop.example; Max-Age=3600",
        ], for: origin, now: now)
        return jar
    }

    @Test func persistentCookiesRoundTripThroughAFileOnlyItsOwnerCanRead() throws {
        let folder = try Fixtures.temporaryDirectory("cookies")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("jar.json")
        let now = Date()
        try Self.filledJar(now: now).write(to: file, now: now)

        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["jar.json"], "no temporary file left")

        let loaded = try CookieJar(contentsOf: file, now: now)
        #expect(Set(loaded.allCookies.map(\.name)) == ["remember", "wide"], "session cookies stay in memory by default")
        let remember = try #require(loaded.allCookies.first { $0.name == "remember" })
        #expect(remember.isSecure && remember.isHTTPOnly && remember.isHostOnly)
        #expect(loaded.allCookies.first { $0.name == "wide" }?.isHostOnly == false)
        #expect(loaded.cookieHeader(for: Self.origin, now: now)?.contains("remember=r1") == true)

        try Self.filledJar(now: now).write(to: file, includingSessionCookies: true, now: now)
        #expect(Set(try CookieJar(contentsOf: file, now: now).allCookies.map(\.name)) == ["session", "remember", "wide"])
        // Read back after they expired, they are gone.
        #expect(try CookieJar(contentsOf: file, now: now.addingTimeInterval(7200)).allCookies.map(\.name) == ["session"])
    }

    @Test func aFileThatIsNotACourierCookieFileIsRefusedWithItsReason() throws {
        let folder = try Fixtures.temporaryDirectory("cookies")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad.json")
        let cases: [(String, String)] = [
            ("not json", "is not a Courier cookie file"),
            (#"{"format": "netscape", "version": 1, "cookies": []}"#, "format \"netscape\""),
            (#"{"format": "courier-cookies", "version": 9, "cookies": []}"#, "has version 9"),
            (#"{"format": "courier-cookies", "version": 1, "cookies": [{"name": "a\r\nSet-Cookie: b", "value": "1", "domain": "x.example", "isHostOnly": true, "path": "/", "isSecure": false, "isHTTPOnly": false, "createdAt": "2026-01-01T00:00:00Z"}]}"#, "invalid cookie at index 0"),
            (#"{"format": "courier-cookies", "version": 1, "cookies": [{"name": "a", "value": "1", "domain": "x.example", "isHostOnly": true, "path": "nope", "isSecure": false, "isHTTPOnly": false, "createdAt": "2026-01-01T00:00:00Z"}]}"#, "does not start with '/'"),
        ]
        for (text, reason) in cases {
            try Data(text.utf8).write(to: file)
            let error = #expect(throws: CookieJarFileError.self) { try CookieJar(contentsOf: file) }
            #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        }
        let missing = #expect(throws: CookieJarFileError.self) { try CookieJar(contentsOf: folder.appendingPathComponent("none.json")) }
        #expect(missing?.description.contains("cannot be read") == true)
        let unwritable = #expect(throws: CookieJarFileError.self) {
            try CookieJar().write(to: folder.appendingPathComponent("no-such-folder/jar.json"))
        }
        #expect(unwritable?.description.contains("cannot be written") == true)
    }
}
