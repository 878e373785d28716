import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Courier's lower layers on their own, to see what each costs: one `Exchange` per request
/// (memory sink, or the `.stream` sink for a discarded download) or the bare transport (`send`, then the body read).
final class CourierLayerClient: PartialBenchClient {
    enum Layer { case exchange, transport }

    private let transport = EngineTransport()
    private let layer: Layer
    var name: String { layer == .exchange ? "courier-exchange" : "courier-transport" }

    init(layer: Layer) {
        self.layer = layer
    }

    func get(_ url: URL) async throws -> Int {
        switch layer {
        case .exchange:
            let result = try await Exchange(request: URLRequest(url: url), configuration: ExchangeConfiguration(transport: transport)).result()
            return result.data?.count ?? 0
        case .transport:
            let response = try await transport.send(TransportRequest(url: url))
            return try await response.body.collect().count
        }
    }

    /// The body counted as it streams: the transport's own stream, or an exchange's `.stream` sink.
    func downloadDiscarding(_ url: URL) async throws -> Int {
        let body: ResponseBodyStream
        switch layer {
        case .exchange:
            var configuration = ExchangeConfiguration(transport: transport)
            configuration.sink = .stream
            guard let stream = try await Exchange(request: URLRequest(url: url), configuration: configuration).result().body else {
                throw BenchUsageError("the exchange returned no body stream")
            }
            body = stream
        case .transport:
            body = try await transport.send(TransportRequest(url: url)).body
        }
        var count = 0
        for try await chunk in body { count += chunk.count }
        return count
    }

    func shutdown() async throws {
        try await transport.shutdown()
    }
}
