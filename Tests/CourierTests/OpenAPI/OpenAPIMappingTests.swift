import Courier
@testable import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How `HTTPRequest`s become `URLRequest`s and `HTTPURLResponse`s become `HTTPResponse`s, and the typed errors of
/// requests that make no URL (thrown by `send` before anything is sent).
@Suite("OpenAPI transport: request and response mapping")
struct OpenAPIMappingTests {
    private func url(_ path: String, base: String, scheme: String? = nil, authority: String? = nil) throws -> String? {
        let request = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path)
        return try URLRequest(request, baseURL: try #require(URL(string: base))).url?.absoluteString
    }

    @Test func pathsAndQueriesJoinTheServerURL() throws {
        #expect(try url("/pets", base: "https://api.example/v1") == "https://api.example/v1/pets")
        #expect(try url("/pets", base: "https://api.example/v1/") == "https://api.example/v1/pets")
        #expect(try url("/pets?limit=2", base: "https://api.example") == "https://api.example/pets?limit=2")
        #expect(try url("/", base: "https://api.example/") == "https://api.example/")
        #expect(try url("/pets?limit=2", base: "https://api.example:8443/v1?key=k#top") == "https://api.example:8443/v1/pets?key=k&limit=2")
        #expect(try url("/pets/a%2Fb", base: "http://127.0.0.1:8080") == "http://127.0.0.1:8080/pets/a%2Fb")
        #expect(try url("/x", base: "http://[::1]:8080/api") == "http://[::1]:8080/api/x")
        // What a URL cannot hold is percent-encoded as UTF-8; escapes already there are kept.
        #expect(try url("/caf\u{E9} au lait?q=a b&r=%41", base: "https://h") == "https://h/caf%C3%A9%20au%20lait?q=a%20b&r=%41")
    }

    @Test func requestSchemeAndAuthorityReplaceTheServerURLs() throws {
        #expect(try url("/x", base: "https://api.example/v1", scheme: "http", authority: "other.example:8080") == "http://other.example:8080/v1/x")
        #expect(try url("/x", base: "https://api.example/v1", authority: "127.0.0.1:9") == "https://127.0.0.1:9/v1/x")
    }

    @Test func methodAndRepeatedFieldsAreKept() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "application/json"))
        fields.append(HTTPField(name: .accept, value: "text/plain"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        fields.append(HTTPField(name: try OpenAPIFixtures.name("X-Trace-ID"), value: "t-1"))
        let request = HTTPRequest(method: .patch, scheme: nil, authority: nil, path: "/pets/1", headerFields: fields)
        let urlRequest = try URLRequest(request, baseURL: try #require(URL(string: "https://api.example")))
        #expect(urlRequest.httpMethod == "PATCH")
        #expect(urlRequest.value(forHTTPHeaderField: "Accept") == "application/json, text/plain")
        #expect(urlRequest.value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
        #expect(urlRequest.value(forHTTPHeaderField: "x-trace-id") == "t-1")
        #expect(urlRequest.allHTTPHeaderFields?.count == 3)
        #expect(urlRequest.httpBody == nil)
    }

    @Test func responseStatusAndFieldsAreKept() throws {
        let url = try #require(URL(string: "https://api.example/pets"))
        let received = try #require(HTTPURLResponse(url: url, statusCode: 418, httpVersion: "HTTP/1.1", headerFields: [
            "Content-Type": "text/plain", "X-Rate-Limit": "10", "Set-Cookie": "a=1",
        ]))
        let response = try HTTPResponse(received)
        #expect(response.status.code == 418)
        #expect(response.headerFields[.contentType] == "text/plain")
        #expect(response.headerFields[try OpenAPIFixtures.name("x-rate-limit")] == "10")
        #expect(response.headerFields[.setCookie] == "a=1")
        #expect(response.headerFields.count == 3)
        if let outOfRange = HTTPURLResponse(url: url, statusCode: 1000, httpVersion: "HTTP/1.1", headerFields: [:]) {
            #expect(throws: CourierTransportError.invalidResponseStatus(1000)) { try HTTPResponse(outOfRange) }
        }
    }

    @Test(arguments: [
        ("relative/base", "/pets", "is not an absolute URL with a scheme and a host"),
        ("mailto:someone@example.com", "/pets", "is not an absolute URL with a scheme and a host"),
        ("https://api.example", "pets", "does not start with \"/\""),
        ("https://api.example", "/pets#section", "contains a fragment"),
        ("https://api.example", "/pets/%zz", "is not followed by two hexadecimal digits"),
        ("https://api.example", "/pets?q=100%", "is not followed by two hexadecimal digits"),
    ])
    func badInputThrowsATypedErrorBeforeSending(base: String, path: String, message: String) async throws {
        let session = OpenAPIFixtures.session()
        defer { session.invalidateSessionCancelingTasks(true) }
        let transport = CourierTransport(session: session)
        let baseURL = try #require(URL(string: base))
        let error = await #expect(throws: CourierTransportError.self) {
            _ = try await transport.send(OpenAPIFixtures.request(.get, path), body: nil, baseURL: baseURL, operationID: "bad")
        }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(error?.description.contains(path) == true || error?.description.contains(base) == true)
    }

    @Test(arguments: [("http", "bad host"), ("http", ""), ("1http", "api.example"), ("http", "api.example/evil")])
    func badSchemeOrAuthorityThrowsATypedError(scheme: String, authority: String) async throws {
        let session = OpenAPIFixtures.session()
        defer { session.invalidateSessionCancelingTasks(true) }
        let transport = CourierTransport(session: session)
        let request = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: "/pets")
        await #expect(throws: CourierTransportError.invalidRequestTarget(scheme: scheme, authority: authority)) {
            _ = try await transport.send(request, body: nil, baseURL: try #require(URL(string: "https://api.example")), operationID: "bad")
        }
    }

    @Test func aBufferedBodyOfTheWrongLengthThrowsATypedError() async throws {
        let session = OpenAPIFixtures.session()
        defer { session.invalidateSessionCancelingTasks(true) }
        let transport = CourierTransport(session: session)
        let baseURL = try #require(URL(string: "https://api.example"))
        let short = HTTPBody([1, 2, 3], length: .known(5))
        await #expect(throws: CourierTransportError.requestBodyLengthMismatch(declared: 5, produced: 3)) {
            _ = try await transport.send(OpenAPIFixtures.request(.post, "/upload"), body: short, baseURL: baseURL, operationID: "upload")
        }
        let long = HTTPBody([1, 2, 3, 4, 5, 6], length: .known(2))
        let error = await #expect(throws: CourierTransportError.requestBodyLengthMismatch(declared: 2, produced: 6)) {
            _ = try await transport.send(OpenAPIFixtures.request(.post, "/upload"), body: long, baseURL: baseURL, operationID: "upload")
        }
        #expect(error?.description == "The request body's length is 2 bytes, but its sequence produced more (at least 6).")
    }
}
