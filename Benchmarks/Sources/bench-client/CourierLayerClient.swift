import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Courier's lower layers on their own, to see what each costs: one `Exchange` per request
/// (memory sink) or the bare transport (`send`, then the body collected).
final class CourierLayerClient: GetOnlyBenchClient {
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


    func shutdown() async throws {
        try await transport.shutdown()
    }
}
