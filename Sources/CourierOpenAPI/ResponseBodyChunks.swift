import Courier
import Foundation
import OpenAPIRuntime
import Synchronization

/// A Courier response body as the chunks of an `HTTPBody`: each chunk is read from the connection when it is asked
/// for (backpressure), a cancellation surfaces as `URLError(.cancelled)`, and a body dropped before its end (the
/// `HTTPBody` and any iterator of it released unread or half read) cancels its request.
struct ResponseBodyChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    private let lifetime: BodyLifetime

    /// - Parameters:
    ///   - stream: The body.
    ///   - url: The request's URL, for the error of a cancellation.
    init(stream: ResponseBodyStream, url: URL?) {
        lifetime = BodyLifetime(stream: stream, url: url)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: lifetime.stream.makeAsyncIterator(), lifetime: lifetime)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBodyStream.Iterator
        /// Kept by the iterator too, so that dropping the sequence while its iterator reads cancels nothing.
        let lifetime: BodyLifetime

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            do {
                guard let chunk = try await base.next() else {
                    lifetime.ended()
                    return nil
                }
                return HTTPBody.ByteChunk(chunk)
            } catch is CancellationError {
                lifetime.ended()
                throw URLError(.cancelled, userInfo: [
                    NSURLErrorFailingURLErrorKey: lifetime.url as Any,
                    NSLocalizedDescriptionKey: "The request was cancelled.",
                ])
            } catch {
                lifetime.ended()
                throw error
            }
        }
    }
}

/// Cancels a response body's request when the last holder of the body lets go of it before its end: without this,
/// an unread body would hold its request (and, over HTTP/1.1, its connection) until the idle timeout, the engine
/// having stopped reading for want of demand.
final class BodyLifetime: Sendable {
    let stream: ResponseBodyStream
    let url: URL?
    private let hasEnded = Atomic(false)

    init(stream: ResponseBodyStream, url: URL?) {
        self.stream = stream
        self.url = url
    }

    /// The body was read to its end, or failed: nothing is left to cancel.
    func ended() {
        hasEnded.store(true, ordering: .relaxed)
    }

    deinit {
        if !hasEnded.load(ordering: .relaxed) { stream.cancel() }
    }
}
