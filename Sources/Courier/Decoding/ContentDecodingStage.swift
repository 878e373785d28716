import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decodes compressed responses as they stream (see ``ContentDecoding``): once per request on the wire.
///
/// `DefaultHeadersStage` asks for them (`Accept-Encoding: gzip, deflate`, or `identity` for a request with `Range`, so
/// a continued download appends the same representation it kept). On the way up this stage replaces a `gzip` or
/// `deflate` body by its decoded bytes and removes `Content-Encoding` and `Content-Length` from the head (the head remembers the coding, so resume data made from it starts over rather than
/// continue decoded bytes by `Range`); a response to a range request, to `HEAD`, with status 204 or 304, or in a
/// coding the request did not accept (a server that sends `gzip` to `Accept-Encoding: identity`) is left as it came,
/// as curl leaves it: its bytes are then the representation as sent, which `Range`, `Content-Length` and `Repr-Digest`
/// describe.
struct ContentDecodingStage: ExchangeStage {
    /// The limits that refuse a decompression bomb.
    let decoding: ContentDecoding

    /// Creates the stage.
    /// - Parameter decoding: The limits. Default `.default`.
    init(decoding: ContentDecoding = .default) {
        self.decoding = decoding
    }

    /// Decodes a `gzip` or `deflate` answer as it streams, when the request accepted that coding (`DefaultHeadersStage`
    /// asked for it, or the caller did).
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        // One pass over the request's fields: on Linux each `value(forHTTPHeaderField:)` lowercases every name.
        var isRange = false
        var acceptEncoding: String?
        for (name, value) in request.urlRequest.allHTTPHeaderFields ?? [:] {
            if name.isHeaderName("Range") {
                isRange = true
            } else if name.isHeaderName("Accept-Encoding") {
                acceptEncoding = value
            }
        }
        let response = try await next(request)
        // A range, and responses that have no body (to HEAD, 204, 304), keep their head as it came; most answers are
        // not encoded at all, so that is asked first.
        let status = response.head.statusCode
        guard !isRange,
              let field = response.transportResponse.headerFields.first(where: { $0.name.isHeaderName("Content-Encoding") }),
              ![204, 206, 304].contains(status), request.urlRequest.httpMethod?.uppercased() != "HEAD",
              let coding = ContentCoding(contentEncoding: field.value),
              // A request that names no coding accepts any (RFC 9110 §12.5.3).
              coding.isAccepted(by: acceptEncoding ?? ContentDecoding.acceptedCodings)
        else { return response }
        return try decoded(response, coding: coding, sentAs: field.value)
    }

    /// `response` with its body decoded and a head that describes the decoded body (and remembers `sentAs`).
    private func decoded(_ response: StageResponse, coding: ContentCoding, sentAs: String) throws -> StageResponse {
        let wire = response.transportResponse
        let fields = wire.headerFields.filter {
            !$0.name.isHeaderName("Content-Encoding") && !$0.name.isHeaderName("Content-Length")
        }
        guard let url = wire.head.url, let head = DecodedResponseHead(
            url: url, statusCode: wire.head.statusCode, httpVersion: wire.httpVersion,
            headerFields: HTTPURLResponse.joined(fields), decodedContentCoding: sentAs
        ) else {
            wire.body.cancel()
            throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: wire.head.url as Any])
        }
        let body = ResponseBodyStream(
            DecodedBody(encoded: wire.body, coding: coding, limits: decoding, url: url),
            cancel: wire.body.cancel
        )
        var decoded = response
        decoded.transportResponse = TransportResponse(
            head: head, headerFields: fields, body: body, httpVersion: wire.httpVersion,
            connection: wire.connection, staleConnectionRetries: wire.staleConnectionRetries
        )
        return decoded
    }
}
