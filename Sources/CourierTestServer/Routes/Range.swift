import Foundation
import Hummingbird

/// `/range/:n` — byte ranges over `abcdefghijklmnopqrstuvwxyz` repeated, implemented here
/// (Hummingbird's FileMiddleware gets several edge cases wrong).
///
/// Single ranges (`a-b`, `a-`, `-k`) give 206 with `Content-Range`; unsatisfiable ones 416 with
/// `Content-Range: bytes */n`; several ranges or a malformed header give the full 200.
/// Every response carries `ETag` (default `"range-n"`, overridable with `?etag=`); `If-Range`
/// honours the range only when it matches. `?ignore_range=1` behaves like a server without
/// range support (full 200, no `Accept-Ranges`).
enum RangeRoutes {
    /// The largest `/range` size accepted (16 GiB).
    static let maxLength = 16 << 30

    static func register(on router: Router<ServerContext>) {
        router.get("/range/:n") { request, context in
            let length: Int = try context.parameters.parse("n")
            guard (0...maxLength).contains(length) else {
                throw Responses.badRequest("n must be between 0 and \(maxLength)")
            }
            let options = try QueryOptions(request)
            let etag = "\"\(options.string("etag") ?? "range-\(length)")\""
            let ignoreRange = ["1", "true", "yes"].contains(options.string("ignore_range") ?? "")
            var headers: HTTPFields = [.eTag: etag, .contentType: "application/octet-stream"]
            if !ignoreRange {
                headers[.acceptRanges] = "bytes"
            }
            let content = AlphabetContent()
            let ifRangeMatches = request.headers[.ifRange].map { $0.trimmingCharacters(in: .whitespaces) == etag } ?? true
            guard !ignoreRange, ifRangeMatches, let range = ByteRangeRequest(header: request.headers[.range]) else {
                return Response(status: .ok, headers: headers, body: body(content, 0..<length))
            }
            guard let selected = range.resolve(length: length) else {
                headers[.contentRange] = "bytes */\(length)"
                headers[.contentType] = nil
                return Responses.empty(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(selected.lowerBound)-\(selected.upperBound)/\(length)"
            return Response(
                status: .partialContent,
                headers: headers,
                body: body(content, selected.lowerBound..<(selected.upperBound + 1))
            )
        }
    }

    /// A body serving `range` of `content` with an exact length.
    static func body(_ content: some VirtualContent, _ range: Range<Int>) -> ResponseBody {
        ResponseBody(contentLength: range.count) { writer in
            try await content.write(range, to: &writer)
        }
    }
}
