import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the follow-up stages share: dropping a response that is not the result, and a body for the next request.
enum FollowUpRequest {
    /// Drops the body of a response that is not the result (a redirect's or a challenge's). After a request without
    /// a body, the response is read to its end so the connection can be reused (a large one is cut off instead).
    /// After a request with a body the connection is closed: a server that answers a redirect or a challenge often
    /// never reads the upload, and the engine would wait for ever to finish a request the server has given up on.
    /// - Throws: `URLError(.cancelled)` when the calling task was cancelled meanwhile.
    static func abandon(_ response: StageResponse, sentBody: HTTPRequestBody?) async throws {
        let body = response.body
        if let sentBody, sentBody.length != 0 {
            body.cancel()
            return
        }
        do {
            _ = try await body.collect(upTo: 1 << 20)
        } catch is ResponseBodyTooLargeError {
            return
        } catch {
            if Task.isCancelled { throw URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: response.request.url as Any]) }
        }
    }

    /// The body to send again with `request`: a stream body is asked for afresh from the hooks (a stream can be read
    /// once); when they supply none it is sent as it is, and the transport fails with
    /// `URLError(.requestBodyStreamExhausted)` when it was already read.
    static func body(
        _ body: HTTPRequestBody?, resentWith request: URLRequest, hooks: any ExchangeHooks
    ) -> HTTPRequestBody? {
        guard let body, case .inputStream = body.source, hooks.suppliesBodyStreams else { return body }
        return HTTPRequestBody(source: .inputStream({
            guard let stream = hooks.newBodyStream(for: request) else { throw URLError(.requestBodyStreamExhausted) }
            return stream
        }), length: body.length)
    }
}
