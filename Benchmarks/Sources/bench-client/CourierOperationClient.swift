import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Courier through `HTTPRequestOperationManager` (operations on an `OperationQueue`), with the
/// HTTP response serializer. Only GETs: the other workloads go through the session client.
final class CourierOperationClient: PartialBenchClient {
    let name = "courier-operation"
    private let manager: HTTPRequestOperationManager

    init() {
        manager = HTTPRequestOperationManager(baseURL: nil)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.completionQueue = DispatchQueue(label: "bench.completion", attributes: .concurrent)
    }

    func get(_ url: URL) async throws -> Int {
        let manager = self.manager
        return try await withCheckedThrowingContinuation { continuation in
            manager.GET(url.absoluteString, parameters: nil, success: { _, object in
                continuation.resume(returning: (object as? Data)?.count ?? 0)
            }, failure: { _, error in
                continuation.resume(throwing: error)
            })
        }
    }


    func shutdown() async throws {
        manager.operationQueue.cancelAllOperations()
        try await manager.transport?.shutdown()
    }
}
