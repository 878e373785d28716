import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Redirect rule")
struct RedirectRuleTests {
    func response(_ status: Int, location: String?, from url: String) throws -> HTTPURLResponse {
        try #require(HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1",
                                     headerFields: location.map { ["Location": $0] } ?? [:]))
    }

    func post(_ url: String) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = Data("a=1".utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic eDp5", forHTTPHeaderField: "Authorization")
        request.setValue("k=v", forHTTPHeaderField: "Cookie")
        return request
    }

    @Test(arguments: [301, 302, 303])
    func seeOtherFamilyBecomesGetWithoutBody(status: Int) throws {
        let request = post("http://a.test/x")
        let next = try #require(RedirectRule.nextRequest(after: try response(status, location: "/y", from: "http://a.test/x"), for: request))
        #expect(next.httpMethod == "GET")
        #expect(next.httpBody == nil)
        #expect(next.value(forHTTPHeaderField: "Content-Type") == nil)
        #expect(next.url?.absoluteString == "http://a.test/y")
        #expect(next.value(forHTTPHeaderField: "Authorization") == "Basic eDp5", "same origin keeps credentials")
    }

    @Test(arguments: [307, 308])
    func temporaryAndPermanentKeepMethodAndBody(status: Int) throws {
        let request = post("http://a.test/x/")
        let next = try #require(RedirectRule.nextRequest(after: try response(status, location: "y?q=1", from: "http://a.test/x/"), for: request))
        #expect(next.httpMethod == "POST")
        #expect(next.httpBody == Data("a=1".utf8))
        #expect(next.url?.absoluteString == "http://a.test/x/y?q=1")
    }

    @Test func headStaysHead() throws {
        var request = URLRequest(url: URL(string: "http://a.test/")!)
        request.httpMethod = "HEAD"
        let next = try #require(RedirectRule.nextRequest(after: try response(302, location: "/b", from: "http://a.test/"), for: request))
        #expect(next.httpMethod == "HEAD")
    }

    @Test func crossOriginDropsAuthorizationAndCookies() throws {
        for target in ["http://b.test/y", "https://a.test/y", "http://a.test:8080/y"] {
            let next = try #require(RedirectRule.nextRequest(after: try response(307, location: target, from: "http://a.test/x"), for: post("http://a.test/x")))
            #expect(next.value(forHTTPHeaderField: "Authorization") == nil, "\(target)")
            #expect(next.value(forHTTPHeaderField: "Cookie") == nil, "\(target)")
            #expect(next.httpBody != nil)
        }
    }

    @Test func notFollowable() throws {
        let request = URLRequest(url: URL(string: "http://a.test/")!)
        #expect(RedirectRule.nextRequest(after: try response(302, location: nil, from: "http://a.test/"), for: request) == nil)
        #expect(RedirectRule.nextRequest(after: try response(200, location: "/x", from: "http://a.test/"), for: request) == nil)
        #expect(RedirectRule.nextRequest(after: try response(304, location: "/x", from: "http://a.test/"), for: request) == nil)
        #expect(RedirectRule.nextRequest(after: try response(302, location: "ftp://a.test/x", from: "http://a.test/"), for: request) == nil)
    }
}
