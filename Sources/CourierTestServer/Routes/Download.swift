import Crypto
import Foundation
import Hummingbird
import NIOCore

/// `/download/:n` — a resumable download for client tests: the seeded bytes of `/bytes/:n`
/// (``TestPayload/bytes(count:seed:)``, seed 0 unless `?seed=`), with `ETag`, single `Range`
/// requests honoured when `If-Range` (if any) matches, and optionally integrity headers and a
/// throttled body.
///
/// Query options:
/// - `seed`: the content's seed (default 0); the default `ETag` is `"download-<seed>-<n>"`.
/// - `etag`: another entity tag (without quotes).
/// - `ignore_range=1`: behave like a server without range support (full 200, no `Accept-Ranges`).
/// - `digest`: `repr` sends `Repr-Digest: sha-256=:<base64>:` (RFC 9530) of the whole representation;
///   `md5` sends `Content-MD5` (RFC 1864) of the bytes in this response; `both` sends both.
/// - `wrong_digest=1`: the digests describe other bytes (seed + 1), to test detection.
/// - `rate`: bytes per second (default unthrottled), written in 10 pieces per second.
/// - `abort_after`: close the connection once the body reaches this absolute offset (a response
///   that starts at or after it is sent whole), to test resumption after a lost connection.
/// - `changed_from`: a range request starting at or after this offset is answered from another version of the file
///   (seed + 1, with its own `ETag`, so an `If-Range` for the first version gets the whole new version with 200), as
///   a file replaced while a segmented download fetches it.
enum DownloadRoutes {
    static func register(on router: Router<ServerContext>) {
        router.get("/download/:n") { request, context in
            let length = try BytesRoutes.lengthParameter(context)
            let options = try QueryOptions(request)
            let changedFrom = try options.int("changed_from", default: -1, in: -1...length)
            let rangeStart = ByteRangeRequest(header: request.headers[.range])?.resolve(length: length)?.lowerBound
            let firstSeed = try options.seed() ?? 0
            let seed = changedFrom >= 0 && (rangeStart ?? -1) >= changedFrom ? firstSeed &+ 1 : firstSeed
            let rate = try options.int("rate", default: 0, in: 0...(1 << 40))
            let ignoreRange = ["1", "true", "yes"].contains(options.string("ignore_range") ?? "")
            let wrongDigest = ["1", "true", "yes"].contains(options.string("wrong_digest") ?? "")
            let digest = options.string("digest") ?? ""
            let abortAfter = try options.int("abort_after", default: -1, in: -1...length)
            guard ["", "repr", "md5", "both"].contains(digest) else {
                throw Responses.badRequest("digest must be repr, md5 or both")
            }
            let etag = "\"\(options.string("etag") ?? "download-\(seed)-\(length)")\""

            var headers: HTTPFields = [.eTag: etag, .contentType: "application/octet-stream"]
            if !ignoreRange { headers[.acceptRanges] = "bytes" }
            let content = SeededContent(seed: seed, length: length)
            let described = wrongDigest ? SeededContent(seed: seed &+ 1, length: length) : content

            var selected = 0..<length
            var status = HTTPResponse.Status.ok
            let ifRangeMatches = request.headers[.ifRange].map { $0.trimmingCharacters(in: .whitespaces) == etag } ?? true
            if !ignoreRange, ifRangeMatches, let range = ByteRangeRequest(header: request.headers[.range]) {
                guard let resolved = range.resolve(length: length) else {
                    headers[.contentRange] = "bytes */\(length)"
                    return Responses.empty(status: .rangeNotSatisfiable, headers: headers)
                }
                selected = resolved.lowerBound..<(resolved.upperBound + 1)
                status = .partialContent
                headers[.contentRange] = "bytes \(resolved.lowerBound)-\(resolved.upperBound)/\(length)"
            }
            if digest == "repr" || digest == "both" {
                var hash = SHA256()
                update(&hash, with: described, 0..<length)
                headers[reprDigest] = "sha-256=:\(Data(hash.finalize()).base64EncodedString()):"
            }
            if digest == "md5" || digest == "both" {
                var hash = Insecure.MD5()
                update(&hash, with: described, selected)
                headers[contentMD5] = Data(hash.finalize()).base64EncodedString()
            }
            let abortAt = abortAfter > selected.lowerBound ? abortAfter : nil
            let body = rate == 0 && abortAt == nil
                ? RangeRoutes.body(content, selected)
                : ResponseBody(contentLength: selected.count) { [selected] writer in
                    let piece = rate == 0 ? contentBlockSize : max(1, rate / 10)
                    var position = selected.lowerBound
                    while position < selected.upperBound {
                        let end = min(position + piece, selected.upperBound, abortAt ?? .max)
                        while position < end {
                            let buffer = content.slice(at: position, maxLength: end - position)
                            try await writer.write(buffer)
                            position += buffer.readableBytes
                        }
                        if position == abortAt {
                            // Give the bytes time to leave before the connection is torn down.
                            try await Task.sleep(for: .milliseconds(50))
                            throw TimingRoutes.AbortConnection()
                        }
                        if rate > 0, position < selected.upperBound { try await Task.sleep(for: .milliseconds(100)) }
                    }
                    try await writer.finish(nil)
                }
            return Response(status: status, headers: headers, body: body)
        }
    }

    // Valid field names: the initializer only fails for names with characters a token cannot hold.
    private static let reprDigest = HTTPFields.Element.Name("Repr-Digest") ?? .contentType
    private static let contentMD5 = HTTPFields.Element.Name("Content-MD5") ?? .contentType

    /// Feeds bytes `range` of `content` to `hash`.
    private static func update(_ hash: inout some HashFunction, with content: some VirtualContent, _ range: Range<Int>) {
        var position = range.lowerBound
        while position < range.upperBound {
            let buffer = content.slice(at: position, maxLength: range.upperBound - position)
            buffer.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
            position += buffer.readableBytes
        }
    }
}
