import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// `swift run courier serve` listens on 127.0.0.1:8080.
let api = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:8080/"))

let (json, response) = try await api.get("get", parameters: ["step": "1"])
print(response.statusCode)
print(json ?? "no body")
