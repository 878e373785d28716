import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

@Suite("HTTPRequestSerializer")
struct HTTPRequestSerializerTests {
    @Test func defaults() {
        let serializer = HTTPRequestSerializer()
        #expect(serializer.stringEncoding == .utf8)
        #expect(serializer.allowsCellularAccess)
        #expect(serializer.cachePolicy == .useProtocolCachePolicy)
        #expect(serializer.httpShouldHandleCookies)
        #expect(!serializer.httpShouldUsePipelining)
        #expect(serializer.networkServiceType == .default)
        #expect(serializer.timeoutInterval == 60)
        #expect(serializer.httpMethodsEncodingParametersInURI == ["GET", "HEAD", "DELETE"])
        #expect(Set(serializer.httpRequestHeaders.keys) == ["Accept-Language", "User-Agent"])
    }

    @Test func defaultHeaderFormats() throws {
        let serializer = HTTPRequestSerializer()
        let language = try #require(serializer.httpRequestHeaders["Accept-Language"])
        #expect(language.hasSuffix(";q=1") || language.contains(";q=1, "))
        let agent = try #require(serializer.httpRequestHeaders["User-Agent"])
        #expect(agent.wholeMatch(of: /[^\/ ]+\/[^ ]+ \(.+ [0-9.]+\)/) != nil, "\(agent)")
        #expect(agent.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test func acceptLanguageQualitiesStopAtHalf() {
        let languages = ["en-US", "fr", "de", "es", "it", "ja", "zh"]
        #expect(DefaultRequestHeaders.acceptLanguage(for: languages) == "en-US;q=1, fr;q=0.9, de;q=0.8, es;q=0.7, it;q=0.6, ja;q=0.5")
        #expect(DefaultRequestHeaders.acceptLanguage(for: ["pt-BR"]) == "pt-BR;q=1")
    }

    @Test func userAgentFromBundleInformationIsASCII() {
        let agent = DefaultRequestHeaders.userAgent(
            bundleInfo: ["CFBundleExecutable": "Café✓", "CFBundleShortVersionString": "2.1"],
            processName: "ignored", operatingSystem: "Linux 6.1.0")
        #expect(agent == "Cafe/2.1 (Linux 6.1.0)")
        let fallback = DefaultRequestHeaders.userAgent(bundleInfo: nil, processName: "tool", operatingSystem: "Linux 6.1.0")
        #expect(fallback == "tool/0 (Linux 6.1.0)")
    }

    @Test func requestCarriesTheSettings() throws {
        let serializer = HTTPRequestSerializer()
        serializer.timeoutInterval = 12
        serializer.cachePolicy = .reloadIgnoringLocalCacheData
        serializer.httpShouldHandleCookies = false
        serializer.allowsCellularAccess = false
        let request = try serializer.request(method: "GET", urlString: "https://example.com/a", parameters: nil)
        #expect(request.httpMethod == "GET")
        #expect(request.timeoutInterval == 12)
        #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(!request.httpShouldHandleCookies)
        #expect(!request.allowsCellularAccess)
        #expect(request.value(forHTTPHeaderField: "User-Agent") == serializer.httpRequestHeaders["User-Agent"])
    }

    @Test(arguments: ["POST", "PUT", "PATCH", "post"])
    func bodyMethodsWithoutParametersGetAnEmptyFormBody(method: String) throws {
        let request = try HTTPRequestSerializer().request(method: method, urlString: "https://example.com/a", parameters: nil)
        #expect(request.httpBody == Data())
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.url?.absoluteString == "https://example.com/a")

        var own = URLRequest(url: try #require(URL(string: "https://example.com/a")))
        own.httpMethod = method
        own.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let kept = try HTTPRequestSerializer().request(bySerializing: own, withParameters: nil)
        #expect(kept.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(kept.httpBody == Data())
    }

    @Test(arguments: ["GET", "HEAD", "DELETE"])
    func uriMethodsWithoutParametersGetNoBody(method: String) throws {
        let request = try HTTPRequestSerializer().request(method: method, urlString: "https://example.com/a", parameters: nil)
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func invalidURLThrows() {
        #expect(throws: RequestSerializationError.invalidURL("http://exa mple.com/\u{0}")) {
            try HTTPRequestSerializer().request(method: "GET", urlString: "http://exa mple.com/\u{0}", parameters: nil)
        }
    }

    @Test(arguments: ["GET", "HEAD", "DELETE", "get"])
    func uriMethodsPutParametersInTheQuery(method: String) throws {
        let request = try HTTPRequestSerializer().request(method: method, urlString: "https://example.com/a", parameters: ["b": "2", "a": "1"])
        #expect(request.url?.absoluteString == "https://example.com/a?a=1&b=2")
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func queryIsAppendedToAnExistingQueryAndKeepsTheFragment() throws {
        let request = try HTTPRequestSerializer().request(method: "GET", urlString: "https://example.com/a?x=0#top", parameters: ["a": "1"])
        #expect(request.url?.absoluteString == "https://example.com/a?x=0&a=1#top")
    }

    @Test(arguments: ["POST", "PUT", "PATCH"])
    func otherMethodsPutParametersInAFormBody(method: String) throws {
        let request = try HTTPRequestSerializer().request(method: method, urlString: "https://example.com/a", parameters: ["name": "Zoë", "n": 1])
        #expect(request.url?.absoluteString == "https://example.com/a")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.httpBody == Data("n=1&name=Zo%C3%AB".utf8))
    }

    @Test func existingContentTypeIsKept() throws {
        var request = URLRequest(url: try #require(SerializationTestSupport.url))
        request.httpMethod = "POST"
        request.setValue("text/plain", forHTTPHeaderField: "content-type")
        let serialized = try HTTPRequestSerializer().request(bySerializing: request, withParameters: ["a": "1"])
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(serialized.httpBody == Data("a=1".utf8))
    }

    @Test func customURIMethods() throws {
        let serializer = HTTPRequestSerializer()
        serializer.httpMethodsEncodingParametersInURI = ["GET"]
        let delete = try serializer.request(method: "DELETE", urlString: "https://example.com/a", parameters: ["a": "1"])
        #expect(delete.httpBody == Data("a=1".utf8))
        #expect(delete.url?.query == nil)
    }

    @Test func headerOverridesAndRemoval() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setValue("custom/1.0", forHTTPHeaderField: "user-agent")
        serializer.setValue("yes", forHTTPHeaderField: "X-Extra")
        #expect(serializer.value(forHTTPHeaderField: "User-Agent") == "custom/1.0")
        #expect(serializer.httpRequestHeaders.count == 3)
        var request = URLRequest(url: try #require(SerializationTestSupport.url))
        request.setValue("mine", forHTTPHeaderField: "X-Extra")
        let serialized = try serializer.request(bySerializing: request, withParameters: nil)
        #expect(serialized.value(forHTTPHeaderField: "X-Extra") == "mine")
        #expect(serialized.value(forHTTPHeaderField: "User-Agent") == "custom/1.0")
        serializer.setValue(nil, forHTTPHeaderField: "X-EXTRA")
        #expect(serializer.value(forHTTPHeaderField: "X-Extra") == nil)
        #expect(serializer.httpRequestHeaders.count == 2)
    }

    @Test func basicAuthorizationWithNonASCIICredentials() {
        let serializer = HTTPRequestSerializer()
        serializer.setAuthorizationHeaderField(username: "Zoë", password: "pässwörd✓")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic Wm/Dqzpww6Rzc3fDtnJk4pyT")
        serializer.setAuthorizationHeaderField(username: "Aladdin", password: "open sesame")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test func tokenAuthorizationAndClearing() {
        let serializer = HTTPRequestSerializer()
        serializer.setAuthorizationHeaderField(token: "abc123")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Token token=\"abc123\"")
        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func customQueryStringBlock() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { request, parameters in
            let keys = (parameters as? [String: Any])?.keys.sorted().joined(separator: "+") ?? ""
            return "custom-\(request.httpMethod ?? "")-\(keys)"
        }
        let get = try serializer.request(method: "GET", urlString: "https://example.com/a", parameters: ["x": 1, "y": 2])
        #expect(get.url?.absoluteString == "https://example.com/a?custom-GET-x+y")
        let post = try serializer.request(method: "POST", urlString: "https://example.com/a", parameters: ["x": 1])
        #expect(post.httpBody == Data("custom-POST-x".utf8))
        serializer.setQueryStringSerialization(style: .default)
        let restored = try serializer.request(method: "GET", urlString: "https://example.com/a", parameters: ["x": 1])
        #expect(restored.url?.query == "x=1")
    }

    @Test func customBlockErrorsPropagate() {
        struct Refused: Error {}
        let serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { _, _ in throw Refused() }
        #expect(throws: Refused.self) {
            try serializer.request(method: "GET", urlString: "https://example.com/a", parameters: ["x": 1])
        }
    }

    struct Search: Encodable { var q: String; var page: Int }

    @Test func encodableParameters() throws {
        let request = try HTTPRequestSerializer().request(method: "GET", urlString: "https://example.com/s", parameters: Search(q: "a b", page: 2))
        #expect(request.url?.query == "page=2&q=a%20b")
    }

    @Test func latin1StringEncodingForBodies() throws {
        let serializer = HTTPRequestSerializer()
        serializer.stringEncoding = .isoLatin1
        let request = try serializer.request(method: "POST", urlString: "https://example.com/a", parameters: ["k": "é"])
        #expect(request.httpBody == Data("k=%E9".utf8))
    }

    @Test func sharedAcrossThreads() async throws {
        let serializer = HTTPRequestSerializer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    for step in 0..<200 {
                        serializer.setValue("\(index)-\(step)", forHTTPHeaderField: "X-Writer-\(index)")
                        let request = try serializer.request(method: "GET", urlString: "https://example.com/a", parameters: ["i": index])
                        #expect(request.url?.query == "i=\(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(serializer.httpRequestHeaders.count == 10)
    }
}

@Suite("JSON and property list request serializers")
struct BodyRequestSerializerTests {
    @Test func jsonBody() throws {
        let serializer = JSONRequestSerializer()
        serializer.writingOptions = [.sortedKeys]
        let request = try serializer.request(method: "POST", urlString: "https://example.com/a", parameters: ["b": [1, 2], "a": NSNull()])
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.httpBody == Data(#"{"a":null,"b":[1,2]}"#.utf8))
    }

    @Test func jsonUsesTheQueryForGET() throws {
        let request = try JSONRequestSerializer().request(method: "GET", urlString: "https://example.com/a", parameters: ["a": 1])
        #expect(request.url?.query == "a=1")
        #expect(request.httpBody == nil)
    }

    @Test func invalidJSONObjectThrows() {
        #expect(throws: RequestSerializationError.self) {
            try JSONRequestSerializer().request(method: "POST", urlString: "https://example.com/a", parameters: ["date": Date()] as [String: Any])
        }
        #expect(throws: RequestSerializationError.self) {
            try JSONRequestSerializer().request(method: "POST", urlString: "https://example.com/a", parameters: ["object": NSObject()] as [String: Any])
        }
        #expect(throws: RequestSerializationError.self) {
            try JSONRequestSerializer().request(method: "POST", urlString: "https://example.com/a", parameters: ["nan": Double.nan])
        }
    }

    struct Payload: Encodable { var name: String; var values: [Int] }

    @Test func jsonEncodable() throws {
        let serializer = JSONRequestSerializer()
        serializer.writingOptions = [.sortedKeys]
        let request = try serializer.request(method: "PUT", urlString: "https://example.com/a", parameters: Payload(name: "x", values: [1]))
        #expect(request.httpBody == Data(#"{"name":"x","values":[1]}"#.utf8))
    }

    @Test func jsonKeepsAnExistingContentType() throws {
        var request = URLRequest(url: try #require(SerializationTestSupport.url))
        request.httpMethod = "POST"
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let serialized = try JSONRequestSerializer().request(bySerializing: request, withParameters: ["a": 1])
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func propertyListBodyRoundTrips(format: PropertyListSerialization.PropertyListFormat) throws {
        let serializer = PropertyListRequestSerializer(format: format)
        let request = try serializer.request(method: "POST", urlString: "https://example.com/a", parameters: ["a": "b", "n": 3])
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-plist")
        let body = try #require(request.httpBody)
        var detected = PropertyListSerialization.PropertyListFormat.openStep
        let decoded = try PropertyListSerialization.propertyList(from: body, options: [], format: &detected) as? [String: Any]
        #expect(detected == format)
        #expect(decoded?["a"] as? String == "b")
        #expect((decoded?["n"] as? NSNumber)?.intValue == 3)
    }

    @Test func invalidPropertyListThrows() {
        #expect(throws: RequestSerializationError.self) {
            try PropertyListRequestSerializer().request(method: "POST", urlString: "https://example.com/a", parameters: ["null": NSNull()])
        }
    }
}
