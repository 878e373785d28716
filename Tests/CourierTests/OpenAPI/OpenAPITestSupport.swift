import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sessions, requests and body readers shared by the OpenAPI transport's suites.
enum OpenAPIFixtures {
    /// An ephemeral session (its own cookie jar, no shared cache) with its own transport; `configure` adjusts it.
    /// Invalidate it when done.
    static func session(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> URLSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.urlCache = nil
        configure(&configuration)
        let session = URLSessionManager(configuration: configuration)
        session.completionQueue = SessionFixtures.completionQueue
        return session
    }

    /// A request with an origin-form `path` (percent-encoded, with its query) and `fields`.
    static func request(_ method: HTTPRequest.Method = .get, _ path: String, fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: fields)
    }

    /// The whole body, read chunk by chunk; the number of chunks with it.
    static func collect(_ body: HTTPBody?) async throws -> (data: Data, chunks: Int) {
        let body = try #require(body)
        var data = Data()
        var chunks = 0
        for try await chunk in body {
            data.append(contentsOf: chunk)
            chunks += 1
        }
        return (data, chunks)
    }

    /// The JSON object of the body.
    static func json(_ body: HTTPBody?) async throws -> [String: Any] {
        let data = try await collect(body).data
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The error `outcome` failed with, or `nil`.
    static func error<Success>(of outcome: Result<Success, any Error>) -> (any Error)? {
        if case .failure(let error) = outcome { return error }
        return nil
    }

    /// A field name known to be valid.
    static func name(_ text: String) throws -> HTTPField.Name {
        try #require(HTTPField.Name(text))
    }
}
