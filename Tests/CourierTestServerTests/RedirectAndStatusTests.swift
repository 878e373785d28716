import AsyncHTTPClient
import CourierTestServer
import Foundation
import Testing

@Suite struct RedirectAndStatusTests {
    @Test func redirectChainsCountDownToGet() async throws {
        try await withServer { (server, client) async throws in
            let first = try await client.fetch(server, "/redirect/3")
            #expect(first.status == 302)
            #expect(first.header("location") == "/relative-redirect/2")
            let relative = try await client.fetch(server, "/relative-redirect/1")
            #expect(relative.header("location") == "/get")
            let absolute = try await client.fetch(server, "/absolute-redirect/2")
            #expect(absolute.status == 302)
            #expect(absolute.header("location") == "http://127.0.0.1:\(server.port)/absolute-redirect/1")
            let last = try await client.fetch(server, "/absolute-redirect/1")
            #expect(last.header("location") == "http://127.0.0.1:\(server.port)/get")
            let viaAbsolute = try await client.fetch(server, "/redirect/2?absolute=true")
            #expect(viaAbsolute.header("location") == "http://127.0.0.1:\(server.port)/absolute-redirect/1")
            #expect(try await client.fetch(server, "/redirect/0").status == 400)
        }
    }

    @Test func followingARedirectChainEndsAtGet() async throws {
        let server = try await TestServer.start()
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .follow(max: 10, allowCycles: false)))
        let response = try await client.execute(HTTPClientRequest(url: server.baseURL.absoluteString + "/redirect/5"), timeout: .seconds(10))
        #expect(response.status == .ok)
        let body = try await response.body.collect(upTo: 1 << 20)
        #expect(String(buffer: body).contains("\"url\" : \"http://127.0.0.1:\(server.port)/get\""))
        #expect(server.requestLog.requests.map(\.path) == [
            "/redirect/5", "/relative-redirect/4", "/relative-redirect/3", "/relative-redirect/2", "/relative-redirect/1", "/get",
        ])
        try await client.shutdown()
        try await server.shutdown()
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectToUsesTheStatusCodeForAnyMethod(code: Int) async throws {
        try await withServer { (server, client) async throws in
            let target = "/anything?x=1"
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let response = try await client.fetch(
                server, "/redirect-to?url=\(encoded)&status_code=\(code)", method: .POST, body: .bytes(Data("payload".utf8)))
            #expect(response.status == code)
            #expect(response.header("location") == target)
        }
    }

    @Test func redirectToDefaultsTo302AndNeedsAURL() async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/redirect-to?url=http%3A%2F%2Fexample.com%2F&status_code=200")
            #expect(response.status == 302)
            #expect(response.header("location") == "http://example.com/")
            #expect(try await client.fetch(server, "/redirect-to").status == 400)
        }
    }

    @Test func statusReturnsTheCode() async throws {
        try await withServer { (server, client) async throws in
            for code in [200, 201, 204, 400, 404, 418, 500, 503] {
                let response = try await client.fetch(server, "/status/\(code)", method: .POST)
                #expect(response.status == code)
            }
            let unauthorized = try await client.fetch(server, "/status/401")
            #expect(unauthorized.header("www-authenticate") == #"Basic realm="Fake Realm""#)
            let moved = try await client.fetch(server, "/status/301")
            #expect(moved.header("location") == "/redirect/1")
            #expect(try await client.fetch(server, "/status/418").text.contains("teapot"))
        }
    }

    @Test func statusPicksFromAListAndHonoursWeights() async throws {
        try await withServer { (server, client) async throws in
            var seen = Set<Int>()
            for _ in 0..<40 {
                seen.insert(try await client.fetch(server, "/status/200,201,202").status)
            }
            #expect(seen == [200, 201, 202])
            for _ in 0..<10 {
                #expect(try await client.fetch(server, "/status/500:0,204:1").status == 204)
            }
        }
    }

    @Test(arguments: ["abc", "99", "600", "200:x", "200:0", ""])
    func invalidStatusIs400(codes: String) async throws {
        try await withServer { (server, client) async throws in
            let response = try await client.fetch(server, "/status/\(codes)")
            #expect(response.status == (codes.isEmpty ? 404 : 400))
        }
    }
}
