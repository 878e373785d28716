import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the end of a pipeline reports to the exchange it runs for: each request on the wire, its body bytes as the
/// socket takes them, and each answer. The exchange keeps them as its current request, progress and metrics.
protocol TransmissionRecorder: AnyObject, Sendable {
    /// A request is about to be sent with a body of `expectedBodyBytes` (-1 unknown, 0 none).
    /// - Throws: `URLError(.cancelled)` when the exchange was cancelled meanwhile: nothing is sent.
    func willTransmit(_ request: URLRequest, expectedBodyBytes: Int64) throws
    /// The transport wrote `count` more request body bytes to the socket.
    func didTransmitBodyBytes(_ count: Int64)
    /// The answer's head arrived.
    func didReceive(_ response: TransportResponse)
}

/// The last stage of every exchange: one request on the wire, through the ``HTTPTransport``.
///
/// It sends exactly what reaches it: the headers in one pass, the body, and — for HTTPS with a challenge handler — a
/// server-trust hook that asks the handler. It is not an ``ExchangeStage``, as it calls no `next`:
/// ``ExchangePipeline`` ends with it.
struct TransportStage: Sendable {
    let transport: any HTTPTransport
    /// The hooks asked about a server's trust, when they answer challenges.
    let challenges: (any ExchangeHooks)?
    let cancellation: TransportCancellation
    let recorder: any TransmissionRecorder

    func send(_ request: StageRequest) async throws -> StageResponse {
        let url = try request.url()
        let urlRequest = request.urlRequest
        try recorder.willTransmit(urlRequest, expectedBodyBytes: request.body.map { $0.length ?? -1 } ?? 0)
        var headers: [(name: String, value: String)] = []
        if let fields = urlRequest.allHTTPHeaderFields {
            headers.reserveCapacity(fields.count)
            for (name, value) in fields { headers.append((name: name, value: value)) }
        }
        var transportRequest = TransportRequest(
            url: url,
            method: urlRequest.httpMethod ?? "GET",
            headers: headers,
            body: request.body,
            timeoutInterval: urlRequest.timeoutInterval,
            cancellation: cancellation
        )
        if request.body != nil {
            transportRequest.didSendBodyBytes = { [weak recorder] count in recorder?.didTransmitBodyBytes(count) }
        }
        if let challenges, url.scheme?.lowercased() == "https" {
            transportRequest.serverTrustHandler = { trust in
                AuthenticationChallenge.serverTrustDecision(
                    for: await challenges.answer(AuthenticationChallenge(serverTrust: trust, request: urlRequest))
                )
            }
        }
        let response = try await transport.send(transportRequest)
        recorder.didReceive(response)
        return StageResponse(request: urlRequest, transportResponse: response)
    }
}
