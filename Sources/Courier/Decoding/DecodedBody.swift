import Foundation

/// A response body decoded as it is read: each encoded chunk is inflated when the reader asks for more, so
/// backpressure still reaches the socket and memory stays at one chunk plus the inflater's window.
struct DecodedBody: AsyncSequence, Sendable {
    typealias Element = Data

    let encoded: ResponseBodyStream
    let coding: ContentCoding
    let limits: ContentDecoding
    let url: URL?

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        private let body: DecodedBody
        private var base: ResponseBodyStream.Iterator
        private let inflater: StreamInflater
        private var encodedBytes: Int64 = 0
        private var decodedBytes: Int64 = 0
        private var ended = false

        init(body: DecodedBody) {
            self.body = body
            self.base = body.encoded.makeAsyncIterator()
            self.inflater = StreamInflater(coding: body.coding)
        }

        mutating func next() async throws -> Data? {
            while !ended {
                let decoded: Data
                do {
                    if let chunk = try await base.next() {
                        encodedBytes += Int64(chunk.count)
                        decoded = try inflater.inflate(chunk)
                    } else {
                        ended = true
                        decoded = try inflater.finish()
                    }
                    try admit(decoded.count)
                } catch let error as ContentDecodingError {
                    ended = true
                    body.encoded.cancel()
                    throw urlError(for: error)
                } catch let error as URLError where error.code == .cannotDecodeContentData {
                    ended = true
                    body.encoded.cancel()
                    throw error
                }
                if !decoded.isEmpty { return decoded }
            }
            return nil
        }

        /// Counts `count` decoded bytes against the limits.
        private mutating func admit(_ count: Int) throws {
            decodedBytes += Int64(count)
            let limits = body.limits
            if let maximum = limits.maximumDecodedSize, decodedBytes > maximum {
                throw refusal("decodes to more than \(maximum) bytes (ContentDecoding.maximumDecodedSize)")
            }
            if decodedBytes > limits.ratioFloor {
                let encoded = Swift.max(encodedBytes, 1)
                let (allowed, overflow) = encoded.multipliedReportingOverflow(by: limits.maximumRatio)
                if !overflow, decodedBytes > allowed {
                    throw refusal("expands \(decodedBytes / encoded) times (\(encodedBytes) bytes to more than \(decodedBytes)), more than ContentDecoding.maximumRatio (\(limits.maximumRatio)); refused as a possible decompression bomb")
                }
            }
        }

        private func refusal(_ reason: String) -> URLError {
            URLError(.cannotDecodeContentData, userInfo: [
                NSURLErrorFailingURLErrorKey: body.url as Any,
                NSLocalizedDescriptionKey: "The response's \(body.coding.name) body \(reason).",
            ])
        }

        private func urlError(for error: ContentDecodingError) -> URLError {
            let reason = switch error {
            case .corrupt: "is not valid \(body.coding.name) data"
            case .truncated: "ended before the end of its \(body.coding.name) stream (after \(encodedBytes) encoded bytes)"
            case .failed(let detail): "could not be decoded (\(detail))"
            }
            return URLError(.cannotDecodeContentData, userInfo: [
                NSURLErrorFailingURLErrorKey: body.url as Any,
                NSLocalizedDescriptionKey: "The response's \(body.coding.name) body \(reason).",
            ])
        }
    }
}
