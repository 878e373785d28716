import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stage that records what passes through it and may change the request on its way down.
final class ProbeStage: ExchangeStage {
    let name: String
    private let change: @Sendable (inout StageRequest) -> Void
    private let seen = Mutex<(requests: [URLRequest], responses: [StageResponse])>(([], []))
    /// Appended to when the probe sees a request (`"name ↓"`) and a response (`"name ↑"`).
    let journal: Journal?

    init(_ name: String, journal: Journal? = nil, change: @escaping @Sendable (inout StageRequest) -> Void = { _ in }) {
        self.name = name
        self.journal = journal
        self.change = change
    }

    var requests: [URLRequest] { seen.withLock { $0.requests } }
    var responses: [StageResponse] { seen.withLock { $0.responses } }

    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        seen.withLock { $0.requests.append(request.urlRequest) }
        journal?.append("\(name) ↓")
        var request = request
        change(&request)
        let response = try await next(request)
        journal?.append("\(name) ↑")
        seen.withLock { $0.responses.append(response) }
        return response
    }
}

/// The order things happened in.
final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A stage that fails with `error` without calling the rest of the pipeline.
struct FailingStage: ExchangeStage {
    let error: any Error
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        throw error
    }
}

enum StageTests {
    static let origin = URL(string: "http://api.example/")!

    /// Runs one exchange for `path` on ``origin`` over `stub`.
    static func exchange(
        _ path: String,
        method: String = "GET",
        body: Data? = nil,
        over stub: StubTransport,
        configure: (inout ExchangeConfiguration) -> Void = { _ in }
    ) -> Exchange {
        var request = URLRequest(url: URL(string: path, relativeTo: origin)!.absoluteURL)
        request.httpMethod = method
        request.httpBody = body
        var configuration = ExchangeConfiguration(transport: stub)
        configure(&configuration)
        return Exchange(request: request, configuration: configuration)
    }

    /// The text of a memory-sink result.
    static func text(_ result: ExchangeResult) -> String {
        String(decoding: result.data ?? Data(), as: UTF8.self)
    }
}
