@testable import Courier
import Foundation
import Testing

/// Issue #33: the two managers turn a base URL and a path into a request URL by one rule (``BaseURL``): the same
/// trailing slash, the same resolution, the same typed error for a path that is not a URL.
@Suite("Base URLs: one rule for both managers")
struct BaseURLTests {
    static let base = URL(string: "https://api.example/v1")

    @Test func bothManagersNormalizeAndResolveAlike() throws {
        let session = HTTPSessionManager(baseURL: Self.base)
        defer { session.invalidateSessionCancelingTasks(true) }
        let operations = HTTPRequestOperationManager(baseURL: Self.base)
        #expect(session.baseURL?.absoluteString == "https://api.example/v1/")
        #expect(operations.baseURL == session.baseURL)
        let expected = [
            "items": "https://api.example/v1/items", "/root": "https://api.example/root",
            "items?q=1": "https://api.example/v1/items?q=1", "https://other.example/x": "https://other.example/x",
        ]
        for (path, url) in expected {
            #expect(try session.request(method: "GET", path, parameters: nil).url?.absoluteString == url, "\(path)")
            #expect(try BaseURL.resolve(path, against: operations.baseURL) == url, "\(path)")
        }
    }

    @Test func aPathThatIsNotAURLIsTheSameTypedErrorInBoth() async {
        let bad = "http://[::1"
        let session = HTTPSessionManager(baseURL: Self.base)
        defer { session.invalidateSessionCancelingTasks(true) }
        #expect(throws: RequestSerializationError.invalidURL(bad)) {
            try session.request(method: "GET", bad, parameters: nil)
        }
        let operations = HTTPRequestOperationManager(baseURL: Self.base)
        await #expect(throws: RequestSerializationError.invalidURL(bad)) {
            try await operations.perform("GET", bad)
        }
    }
}
