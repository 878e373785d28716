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

/// What `/flaky/…` answers once it stops failing.
struct Attempt: Decodable {
    let attempt: Int
}

var configuration = SessionConfiguration.default
configuration.timeoutIntervalForRequest = 10
configuration.httpAdditionalHeaders = ["X-Client": "courier-tutorial"]

// A cache on disk: the next run, within a minute, is answered from it too.
let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tutorial-cache")
configuration.urlCache = try HTTPCache(directory: cacheDirectory, diskCapacity: 16 << 20)

// A failed GET, HEAD, PUT or DELETE goes again, at most twice, after a growing random delay.
configuration.interceptors = [RetryPolicy()]

// `swift run courier serve` listens on 127.0.0.1:8080.
let api = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:8080/"), configuration: configuration)
api.setTaskWillRetryBlock { _, task, event in
    print("task \(task.taskIdentifier): retry \(event.retryNumber) in \(String(format: "%.2f", event.delay)) s (\(event.error))")
}

let (echo, response) = try await api.get("get", parameters: ["step": "5"], as: Echo.self)
print(response.statusCode, echo.url, echo.headers["X-Client"] ?? "no X-Client")

// `/cache/60` may be kept for 60 seconds; an answer from the cache carries an `Age` header.
for round in 1...2 {
    let (_, cached) = try await api.get("cache/60", as: Echo.self)
    let age = cached.value(forHTTPHeaderField: "Age")
    print("round \(round):", age.map { "from the cache, \($0) s old" } ?? "from the network")
}

// `/flaky/2/<key>` answers 503 twice for a new key, then succeeds.
let (flaky, _) = try await api.get("flaky/2/\(UUID().uuidString)", as: Attempt.self)
print("answered on attempt \(flaky.attempt)")
