import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Raw AsyncHTTPClient through its delegate API (`execute(request:delegate:)`), GETs and discarded downloads (the body
/// counted on the event loop): the floor of any client built on that API, to tell the engine path's cost from the
/// cost of the layers above it.
final class AsyncHTTPClientDelegateClient: PartialBenchClient {
    let name = "ahc-delegate"
    private let client = AsyncHTTPClientClient.makeHTTPClient()

    func get(_ url: URL) async throws -> Int {
        let request = try HTTPClient.Request(url: url.absoluteString)
        return try await client.execute(request: request, delegate: CountingDelegate()).futureResult.get()
    }

    /// The body counted on the event loop as it arrives: no task reads it.
    func downloadDiscarding(_ url: URL) async throws -> Int {
        try await get(url)
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}

/// Counts the body bytes of a 2xx response; any other status fails the request.
private final class CountingDelegate: HTTPClientResponseDelegate {
    /// The status and the body bytes so far (uncontended: the engine calls the delegate on one event loop).
    private let state = Mutex((status: HTTPResponseStatus.ok, count: 0))

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        state.withLock { $0.status = head.status }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        state.withLock { $0.count += buffer.readableBytes }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int {
        let (status, count) = state.withLock { ($0.status, $0.count) }
        guard (200..<300).contains(status.code) else { throw BenchStatusError(status: Int(status.code)) }
        return count
    }
}
