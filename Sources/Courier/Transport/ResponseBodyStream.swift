import Foundation

/// The body of a response as an asynchronous sequence of `Data` chunks.
///
/// Backpressure is real: a consumer that stops iterating stops the engine's socket reads, so a
/// paused or slow consumer keeps memory flat. Dropping the stream before the end, or calling
/// ``cancel()``, cancels the underlying request and frees its connection.
///
/// A body can be iterated once.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body as it arrived.
    public typealias Element = Data

    private let makeBase: @Sendable () -> any AsyncIteratorProtocol<Data, any Error>
    private let cancelRequest: @Sendable () -> Void

    /// Wraps any sequence of chunks. Transports other than the built-in one use this.
    /// - Parameters:
    ///   - chunks: The body's chunks, in order.
    ///   - cancel: Cancels the request the body belongs to. Default: does nothing.
    public init<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks,
        cancel: @escaping @Sendable () -> Void = {}
    ) where Chunks.Element == Data {
        self.makeBase = { ErasedIterator(base: chunks.makeAsyncIterator()) }
        self.cancelRequest = cancel
    }

    /// A body that is already in memory.
    public init(data: Data) {
        self.init(InMemoryChunks(data: data))
    }

    /// Cancels the request this body belongs to. Iteration then throws `URLError(.cancelled)`.
    public func cancel() {
        cancelRequest()
    }

    /// Creates the iterator. Iterate a body only once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: makeBase())
    }

    /// Reads the rest of the body into memory.
    /// - Parameter limit: The most bytes to accept; more cancels the request and throws
    ///   ``ResponseBodyTooLargeError``. Default `Int.max`.
    public func collect(upTo limit: Int = .max) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else {
                cancel()
                throw ResponseBodyTooLargeError(limit: limit)
            }
            data.append(chunk)
        }
        return data
    }

    /// The iterator of a ``ResponseBodyStream``.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: any AsyncIteratorProtocol<Data, any Error>

        init(base: any AsyncIteratorProtocol<Data, any Error>) {
            self.base = base
        }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> Data? {
            try await base.next()
        }
    }
}

/// Thrown by ``ResponseBodyStream/collect(upTo:)`` when the body exceeds the limit.
public struct ResponseBodyTooLargeError: Error, CustomStringConvertible {
    /// The limit that was exceeded, in bytes.
    public let limit: Int
    /// A one-line explanation.
    public var description: String { "The response body exceeds the limit of \(limit) bytes." }
}

/// Erases a typed iterator to `any AsyncIteratorProtocol<Data, any Error>`.
private struct ErasedIterator<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol where Base.Element == Data {
    var base: Base
    mutating func next() async throws -> Data? { try await base.next() }
}

/// One in-memory chunk (or none for an empty body).
private struct InMemoryChunks: AsyncSequence, Sendable {
    let data: Data
    func makeAsyncIterator() -> Iterator { Iterator(pending: data.isEmpty ? nil : data) }
    struct Iterator: AsyncIteratorProtocol {
        var pending: Data?
        mutating func next() async throws -> Data? {
            defer { pending = nil }
            return pending
        }
    }
}
