import Foundation
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Header injection and request smuggling are refused before a byte is sent; a redirect from https to http keeps the
/// credential and the `Secure` cookies behind.
@Suite("Data safety: request injection and downgrades", .timeLimit(.minutes(2)))
struct RequestInjectionTests {
    static let refused: [(name: String, value: String, error: RequestHeaderError)] = [
        ("X-Probe", "a\r\nX-Injected: 1", .invalidFieldValue(name: "X-Probe", character: 0x0D)),
        ("X-Probe", "a\nGET /smuggled HTTP/1.1", .invalidFieldValue(name: "X-Probe", character: 0x0A)),
        ("X-Probe", "a\u{0}b", .invalidFieldValue(name: "X-Probe", character: 0x00)),
        ("X-Probe", "a\u{7F}", .invalidFieldValue(name: "X-Probe", character: 0x7F)),
        ("Bad Name", "1", .invalidFieldName("Bad Name")),
        ("X-A:B", "1", .invalidFieldName("X-A:B")),
        ("X-\r\nInjected", "1", .invalidFieldName("X-\r\nInjected")),
    ]

    @Test func controlCharactersInFieldsAreRefusedBeforeAnythingIsSent() async throws {
        let server = try await Fixtures.plainServer.value
        for (name, value, expected) in Self.refused {
            let before = server.requestLog.count
            // What any stage hands the transport.
            await #expect(throws: expected, "\(name.debugDescription): \(value.debugDescription)") {
                _ = try await Fixtures.transport.send(TransportRequest(url: try await Fixtures.url("/headers"), headers: [(name, value)]))
            }
            // A serializer's default header: URLRequest would drop a value with CR, LF or NUL without a word.
            let serializer = HTTPRequestSerializer()
            serializer.setValue(value, forHTTPHeaderField: name)
            #expect(throws: expected) { _ = try serializer.request(method: "GET", urlString: server.baseURL.absoluteString, parameters: nil) }
            // A URLRequest's own fields (Foundation keeps bad names and DEL; it drops CR, LF and NUL values itself).
            var request = URLRequest(url: try await Fixtures.url("/headers"))
            request.setValue(value, forHTTPHeaderField: name)
            if request.value(forHTTPHeaderField: name) != nil {
                await #expect(throws: expected) {
                    _ = try await Exchange(request: request, configuration: .init(transport: Fixtures.transport)).result()
                }
            }
            #expect(server.requestLog.count == before, "a request reached the server for \(name.debugDescription)")
        }
        // A tab is allowed in a value; the request goes through.
        var fine = URLRequest(url: try await Fixtures.url("/headers"))
        fine.setValue("a\tb", forHTTPHeaderField: "X-Probe")
        let result = try await Exchange(request: fine, configuration: .init(transport: Fixtures.transport)).result()
        #expect(result.response.statusCode == 200)
    }

    @Test func anOverLongHeaderSectionIsRefused() async throws {
        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        var request = URLRequest(url: try await Fixtures.url("/headers"))
        for index in 0..<20 { request.setValue(String(repeating: "v", count: 4000), forHTTPHeaderField: "X-Long-\(index)") }
        await #expect {
            _ = try await Exchange(request: request, configuration: .init(transport: Fixtures.transport)).result()
        } throws: { error in
            guard case .sectionTooLarge(let bytes, let limit)? = error as? RequestHeaderError else { return false }
            return bytes > limit && limit == RequestHeaderCheck.maximumSectionBytes
        }
        #expect(server.requestLog.count == before)
    }

    @Test func aRedirectFromHTTPSToHTTPDropsTheCredentialAndSecureCookies() async throws {
        let secure = try await TestServer.start(tls: true)
        let plain = try await Fixtures.plainServer.value
        let ca = try #require(secure.certificateAuthorityDER)
        let transportConfiguration = EngineTransport.Configuration()
        transportConfiguration.securityPolicy.trustedRootCertificates = [ca]
        let transport = EngineTransport(configuration: transportConfiguration)
        defer { Task { try? await transport.shutdown(); try? await secure.shutdown() } }

        let jar = CookieJar()
        jar.store(StoredCookie(name: "session", value: "secret", domain: "127.0.0.1", isSecure: true))
        jar.store(StoredCookie(name: "theme", value: "dark", domain: "127.0.0.1"))
        let target = plain.baseURL.appendingPathComponent("headers").absoluteString
        var components = try #require(URLComponents(url: secure.baseURL.appendingPathComponent("redirect-to"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "url", value: target)]
        var request = URLRequest(url: try #require(components.url))
        request.setValue("Bearer top-secret", forHTTPHeaderField: "Authorization")
        var configuration = ExchangeConfiguration(transport: transport)
        configuration.cookieJar = jar
        let result = try await Exchange(request: request, configuration: configuration).result()
        #expect(result.redirectCount == 1)
        #expect(result.response.url?.scheme == "http")
        let headers = try #require(try Fixtures.json(result)["headers"] as? [String: String])
        #expect(headers["Authorization"] == nil, "\(headers)")
        #expect(headers["Cookie"] == "theme=dark", "\(headers)")
        // The https request itself carried both.
        let first = try #require(secure.requestLog.requests.first { $0.path == "/redirect-to" })
        #expect(first.header("authorization") == "Bearer top-secret")
        #expect(first.header("cookie")?.contains("session=secret") == true)
    }

    @Test func aDomainThatIsAPublicSuffixIsRefused() throws {
        let list = PublicSuffixList(parsing: """
        // a few rules, in the list's own format
        com
        co.uk
        *.ck
        !www.ck
        github.io
        """)
        #expect(list.isPublicSuffix("com") && list.isPublicSuffix("co.uk") && list.isPublicSuffix("github.io"))
        #expect(list.isPublicSuffix("anything.ck") && !list.isPublicSuffix("www.ck"))
        #expect(!list.isPublicSuffix("example.com") && !list.isPublicSuffix("bbc.co.uk"))
        #expect(list.isPublicSuffix("unlisted"), "the default rule: a single label")

        let url = try #require(URL(string: "https://shop.example.co.uk/cart"))
        #expect(SetCookieParser.cookie(from: "a=1; Domain=co.uk", for: url, suffixes: list) == nil)
        #expect(SetCookieParser.cookie(from: "a=1; Domain=.uk", for: url, suffixes: list) == nil)
        let own = try #require(SetCookieParser.cookie(from: "a=1; Domain=example.co.uk", for: url, suffixes: list))
        #expect(own.domain == "example.co.uk" && !own.isHostOnly)
        let pages = try #require(URL(string: "https://someone.github.io/"))
        #expect(SetCookieParser.cookie(from: "a=1; Domain=github.io", for: pages, suffixes: list) == nil)
        // The host itself may name its own public suffix: the cookie is then for that host alone.
        let registry = try #require(URL(string: "https://github.io/"))
        let hostOnly = try #require(SetCookieParser.cookie(from: "a=1; Domain=github.io", for: registry, suffixes: list))
        #expect(hostOnly.isHostOnly && hostOnly.domain == "github.io")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: PublicSuffixList.systemPath), "the publicsuffix package is not installed"))
    func theSystemListIsRead() throws {
        let system = PublicSuffixList.system
        #expect(!system.isEmpty)
        #expect(system.isPublicSuffix("co.uk") && system.isPublicSuffix("github.io") && system.isPublicSuffix("com"))
        #expect(!system.isPublicSuffix("example.com"))
        let jar = CookieJar()
        let url = try #require(URL(string: "https://www.example.co.uk/"))
        jar.store(setCookieHeaders: ["tracker=1; Domain=co.uk", "mine=1; Domain=example.co.uk"], for: url)
        #expect(jar.allCookies.map(\.name) == ["mine"])
    }

    @Test func theJarKeepsToItsLimitsDroppingTheOldest() throws {
        let jar = CookieJar()
        let url = try #require(URL(string: "http://many.example/"))
        let start = Date()
        for index in 0..<(CookieJar.maximumCookiesPerDomain + 20) {
            jar.store(setCookieHeaders: ["c\(index)=v"], for: url, now: start.addingTimeInterval(Double(index)))
        }
        let names = Set(jar.allCookies.map(\.name))
        #expect(names.count == CookieJar.maximumCookiesPerDomain)
        #expect(!names.contains("c0") && !names.contains("c19") && names.contains("c20") && names.contains("c199"))
        // Too long a name and value together is not stored.
        jar.store(setCookieHeaders: ["big=" + String(repeating: "x", count: 4094)], for: url)
        #expect(!jar.allCookies.contains { $0.name == "big" })
    }
}
