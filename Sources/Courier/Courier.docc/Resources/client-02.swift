import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The part of the test server's echo this client reads.
struct Echo: Decodable {
    let url: String
    let headers: [String: String]
}

var configuration = SessionConfiguration.default
configuration.timeoutIntervalForRequest = 10
configuration.httpAdditionalHeaders = ["X-Client": "courier-tutorial"]

// `swift run courier serve` listens on 127.0.0.1:8080.
let api = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:8080/"), configuration: configuration)

let (echo, response) = try await api.get("get", parameters: ["step": "2"], as: Echo.self)
print(response.statusCode, echo.url, echo.headers["X-Client"] ?? "no X-Client")
