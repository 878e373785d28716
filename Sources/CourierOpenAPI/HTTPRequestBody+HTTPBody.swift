import Courier
import Foundation
import OpenAPIRuntime

extension HTTPRequestBody {
    /// The Courier body for `body`: read into memory first when its length is known and at most `limit` bytes (so
    /// it can be sent again), otherwise streamed from its sequence as the connection takes it, with its length
    /// when known (else chunked).
    /// - Throws: the error of `body`'s sequence while a buffered body is read, or
    ///   ``CourierTransportError/requestBodyLengthMismatch(declared:produced:)`` when it produces another number of
    ///   bytes than its length says. (A streamed body of the wrong length fails in the transport.)
    static func streaming(_ body: HTTPBody, bufferingUpTo limit: Int) async throws -> HTTPRequestBody {
        switch body.length {
        case .known(let length) where length < 0:
            // No body has a negative length: sent as one whose length is unknown.
            return .asyncSequence(HTTPBodyChunks(body: body), length: nil)
        case .known(let length) where length <= Int64(max(limit, 0)):
            var data = Data()
            data.reserveCapacity(Int(length))
            for try await chunk in body {
                let produced = Int64(data.count + chunk.count)
                guard produced <= length else {
                    throw CourierTransportError.requestBodyLengthMismatch(declared: length, produced: produced)
                }
                data.append(contentsOf: chunk)
            }
            guard Int64(data.count) == length else {
                throw CourierTransportError.requestBodyLengthMismatch(declared: length, produced: Int64(data.count))
            }
            return .data(data)
        case .known(let length):
            return .asyncSequence(HTTPBodyChunks(body: body), length: length)
        case .unknown:
            return .asyncSequence(HTTPBodyChunks(body: body), length: nil)
        }
    }
}

/// An `HTTPBody`'s chunks as `Data`, for `HTTPRequestBody.asyncSequence(_:length:)`.
struct HTTPBodyChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let body: HTTPBody

    func makeAsyncIterator() -> Iterator {
        Iterator(base: body.makeAsyncIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.Iterator

        mutating func next() async throws -> Data? {
            try await base.next().map { Data($0) }
        }
    }
}
