import Foundation
import Hummingbird
import NIOCore

/// `/bytes/:n` and `/stream-bytes/:n`: seeded pseudo-random bodies of any length, fixed or chunked.
enum BytesRoutes {
    /// The largest body `/bytes` and `/stream-bytes` serve (16 GiB).
    static let maxLength = 16 << 30
    static func register(on router: Router<ServerContext>) {
        router.get("/bytes/:n") { request, context in
            let length = try lengthParameter(context)
            let seed = try QueryOptions(request).seed() ?? UInt64.random(in: .min ... .max)
            let content = SeededContent(seed: seed, length: length)
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: RangeRoutes.body(content, 0..<length)
            )
        }

        router.get("/stream-bytes/:n") { request, context in
            let length = try lengthParameter(context)
            let options = try QueryOptions(request)
            let seed = try options.seed() ?? UInt64.random(in: .min ... .max)
            let chunkSize = try options.int("chunk_size", default: 10 * 1024, in: 1...(16 * 1024 * 1024))
            let content = SeededContent(seed: seed, length: length)
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody { writer in
                    try await content.write(0..<length, chunkSize: chunkSize, to: &writer)
                }
            )
        }
    }

    /// The `n` path parameter as a body length, 0...``maxLength``.
    static func lengthParameter(_ context: ServerContext) throws -> Int {
        let length: Int = try context.parameters.parse("n")
        guard (0...maxLength).contains(length) else {
            throw Responses.badRequest("n must be between 0 and \(maxLength)")
        }
        return length
    }
}
