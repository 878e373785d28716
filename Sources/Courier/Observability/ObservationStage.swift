import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Observability of each request on the wire: the last stage before the transport, in the pipeline only when the
/// exchange is traced or logged at `trace` (an exchange nobody watches does not have it).
///
/// For each request that reaches it (every redirect hop, challenge answer, retry and cache revalidation, never an
/// answer from the cache) it starts a client span as a child of the exchange's span and puts its context into the
/// request's header fields (`traceparent`…, through the tracer), logs the request with its header fields (secrets
/// masked) at `trace`, and records the answer's status and protocol version, or the failure, on the span. The
/// exchange's own record (its span, its start and end in the log, its measurements) spans the body as well, so the
/// exchange's lifecycle opens and closes it (``ExchangeObservation``); the stages' decisions reach the log through
/// ``ExchangeObservation/current``.
struct ObservationStage: ExchangeStage {
    let observation: ExchangeObservation

    /// The stage for the running exchange's observation, when it has anything to record per request.
    init?(_ observation: ExchangeObservation?) {
        guard let observation, observation.trace != nil || observation.log?.tracesDecisions == true else { return nil }
        self.observation = observation
    }

    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        var request = request
        if let trace = observation.trace {
            trace.attemptStarting(&request.urlRequest, url: try request.url())
        }
        if let log = observation.log, log.tracesDecisions { log.sending(request.urlRequest) }
        let response: StageResponse
        do {
            response = try await next(request)
        } catch {
            observation.trace?.attemptFailed(error)
            throw error
        }
        observation.trace?.attemptAnswered(
            statusCode: response.head.statusCode, httpVersion: response.transportResponse.httpVersion
        )
        return response
    }
}
