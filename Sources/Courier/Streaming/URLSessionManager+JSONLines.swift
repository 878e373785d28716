import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionManager {
    /// The values of a line-delimited JSON response (`application/x-ndjson`, `application/jsonl`: one JSON value a
    /// line, as streaming APIs send results while they are made), each decoded as `type` as soon as its line has
    /// arrived.
    ///
    /// The request goes through ``bytes(for:body:interceptors:)`` (the session's whole pipeline; the body read with
    /// backpressure) with `Accept: application/x-ndjson, application/jsonl` unless it carries its own. Lines end at
    /// LF or CRLF; blank lines are skipped; a last line without a line end counts. Cancelling the task that iterates,
    /// or dropping the sequence, closes the connection.
    /// - Parameters:
    ///   - type: What each line is.
    ///   - request: The request.
    ///   - decoder: Decodes each line. Default a plain `JSONDecoder`.
    ///   - maximumLineLength: The most bytes of one line. Default 8 MiB: a longer one ends the sequence with
    ///     ``StreamingResponseError/lineTooLong(limit:)``.
    /// - Returns: The values; the sequence throws ``HTTPStatusError`` for a status of 400 or more, and
    ///   ``StreamingResponseError/undecodableLine(line:reason:)`` for a line that is not a `type`.
    public func jsonLines<Value: Decodable & Sendable>(
        of type: Value.Type, for request: URLRequest, decoder: JSONDecoder = JSONDecoder(), maximumLineLength: Int = 8 << 20
    ) -> AsyncThrowingStream<Value, any Error> {
        let (values, continuation) = AsyncThrowingStream<Value, any Error>.makeStream()
        var request = request
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.setValue("application/x-ndjson, application/jsonl", forHTTPHeaderField: "Accept")
        }
        let reader = Task { [self, request] in
            do {
                let (response, body) = try await bytes(for: request)
                guard response.statusCode < 400 else { throw HTTPStatusError(response: response) }
                var splitter = LineSplitter(limit: max(1, maximumLineLength))
                var number = 0
                func decode(_ line: [UInt8]) throws {
                    number += 1
                    guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return }
                    do {
                        continuation.yield(try decoder.decode(Value.self, from: Data(line)))
                    } catch {
                        throw StreamingResponseError.undecodableLine(line: number, reason: "\(error)")
                    }
                }
                for try await chunk in body {
                    for line in try splitter.lines(in: chunk) { try decode(line) }
                }
                if !splitter.unfinished.isEmpty { try decode(splitter.unfinished) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: Task.isCancelled ? nil : error)
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return values
    }
}
