import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLConnectionOperation {
    /// Waits for the operation to finish (it does not start it: enqueue it or call ``start()``)
    /// and returns ``responseData``, or throws ``error``. Cancelling the calling task cancels the
    /// operation.
    public func responseData() async throws -> Data? {
        await finished()
        if let error { throw error }
        return responseData
    }
}

/// Seed 001: a cancellable replacement for `NSURLConnection.sendAsynchronousRequest`.
extension URLConnectionOperation {
    /// The queue the operations of ``sendAsynchronousRequest(_:queue:completionHandler:)`` run on.
    static let asynchronousRequestQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "Courier.sendAsynchronousRequest"
        return queue
    }()

    /// Sends `request` and calls `handler` once with the response, the body and the error, on
    /// `queue` (the main queue when `nil`) — also after ``cancelAsynchronousRequest(_:)``, with
    /// `URLError(.cancelled)`. Returns the operation as the handle to cancel.
    @discardableResult
    public static func sendAsynchronousRequest(
        _ request: URLRequest,
        queue: OperationQueue? = nil,
        completionHandler handler: @escaping @Sendable (_ response: URLResponse?, _ data: Data?, _ error: (any Error)?) -> Void
    ) -> URLConnectionOperation {
        let operation = URLConnectionOperation(request: request)
        let delivery = BlockOperation { [operation] in
            handler(operation.response, operation.responseData, operation.error)
        }
        delivery.addDependency(operation)
        asynchronousRequestQueue.addOperation(operation)
        (queue ?? .main).addOperation(delivery)
        return operation
    }

    /// Cancels a request sent with ``sendAsynchronousRequest(_:queue:completionHandler:)``; its
    /// handler still runs, with `URLError(.cancelled)`.
    public static func cancelAsynchronousRequest(_ request: URLConnectionOperation) {
        request.cancel()
    }

    /// The async twin of ``sendAsynchronousRequest(_:queue:completionHandler:)``: returns the
    /// response and the body, or throws. Cancelling the calling task cancels the request.
    public static func sendAsynchronousRequest(_ request: URLRequest) async throws -> (response: HTTPURLResponse?, data: Data?) {
        let operation = URLConnectionOperation(request: request)
        asynchronousRequestQueue.addOperation(operation)
        let data = try await operation.responseData()
        return (operation.response, data)
    }
}
