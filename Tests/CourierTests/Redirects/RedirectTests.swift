import Synchronization
import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Exchange: redirects against the test server")
struct RedirectTests {
    @Test(arguments: [301, 302, 303, 307, 308])
    func eachRedirectCode(status: Int) async throws {
        let body = Data("payload=\(status)".utf8)
        let target = "/anything/landed".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let result = try await Fixtures.exchange("/redirect-to?url=\(target)&status_code=\(status)", method: "POST", body: body)
        #expect(result.response.statusCode == 200)
        #expect(result.redirectCount == 1)
        #expect(result.request.url?.path == "/anything/landed")
        let echo = try Fixtures.json(result)
        if status == 307 || status == 308 {
            #expect(echo["method"] as? String == "POST")
            #expect(echo["body_sha256"] as? String == body.sha256Hex)
        } else {
            #expect(echo["method"] as? String == "GET")
            #expect(echo["body_size"] as? Int == 0)
        }
    }

    @Test func relativeAndAbsoluteChains() async throws {
        for path in ["/redirect/3", "/relative-redirect/3", "/absolute-redirect/3"] {
            let result = try await Fixtures.exchange(path)
            #expect(result.response.statusCode == 200, "\(path)")
            #expect(result.redirectCount == 3, "\(path)")
            #expect(result.request.url?.path == "/get", "\(path)")
        }
    }

    @Test func sixteenHopsFollowedSeventeenFail() async throws {
        let result = try await Fixtures.exchange("/redirect/16")
        #expect(result.redirectCount == 16)
        #expect(result.response.statusCode == 200)

        await #expect {
            _ = try await Fixtures.exchange("/redirect/17")
        } throws: { error in
            (error as? URLError)?.code == .httpTooManyRedirects
        }
    }

    @Test func hookSeesEachHopAndModifiesIt() async throws {
        let hops = Mutex<[String]>([])
        let result = try await Fixtures.exchange("/redirect/2") { configuration in
            configuration.handlers.redirectHandler = { proposed, response in
                hops.withLock { $0.append("\(response.statusCode) \(proposed.url?.path ?? "")") }
                var modified = proposed
                modified.setValue("hop", forHTTPHeaderField: "X-Courier-Hop")
                return modified
            }
        }
        #expect(hops.withLock { $0 }.count == 2)
        let headers = try #require(try Fixtures.json(result)["headers"] as? [String: Any])
        #expect(headers["X-Courier-Hop"] as? String == "hop")
    }

    @Test func hookRefusingDeliversTheRedirect() async throws {
        let result = try await Fixtures.exchange("/redirect/2") { configuration in
            configuration.handlers.redirectHandler = { _, _ in nil }
        }
        #expect(result.response.statusCode == 302)
        #expect(result.redirectCount == 0)
        #expect(result.response.value(forHTTPHeaderField: "Location") != nil)
    }

    @Test func notFollowingDeliversTheRedirect() async throws {
        let result = try await Fixtures.exchange("/redirect/1") { $0.followsRedirects = false }
        #expect(result.response.statusCode == 302)
    }
}
