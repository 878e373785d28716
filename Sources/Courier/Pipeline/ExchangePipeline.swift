import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The chain of stages one exchange runs its request through, in a fixed order (OkHttp's interceptor chain):
///
/// 1. the caller's stages (``ExchangeConfiguration/stages``), in the order given: they see the request first and
///    the final response last; then `DefaultHeadersStage` (every header field Courier adds that the caller did not
///    set: the additional headers, `User-Agent`, `Accept-Encoding`, `Content-Length`); then `InterceptionStage` (the
///    request interceptors: adapters before each attempt, retries; left out when there are none);
/// 2. the follow-ups, each of which may send another request for the response it gets:
///    `ResumptionRestartStage` (a resumed download, once for the whole chain), `RedirectStage`, then
///    `AuthenticationStage` (once per hop, so a challenge after a redirect is answered for the new hop; left out
///    when the exchange has no credential, credential store or challenge handler);
/// 3. once per request on the wire: `CookieStage`, then `ContentDecodingStage` (left out when
///    ``ExchangeConfiguration/contentDecoding`` is `nil`);
/// 4. the cache: `CacheStage` (left out when ``ExchangeConfiguration/cache`` is `nil`), once per request on the
///    wire, so a redirect hop can be answered from the cache too;
/// 5. observability: `ObservationStage` (a span and a trace-level log line per request on the wire, the trace
///    context in its headers; left out when nothing traces or logs at `trace`);
/// 6. the transport: an exchange ends its pipeline with `TransportStage`, which sends exactly what reaches it.
public struct ExchangePipeline: Sendable {
    /// The stages in order, outermost first.
    public let stages: [any ExchangeStage]
    private let transport: @Sendable (StageRequest) async throws -> StageResponse

    /// Creates a pipeline.
    /// - Parameters:
    ///   - stages: The stages, outermost first.
    ///   - transport: Sends what reaches the end of the chain.
    public init(stages: [any ExchangeStage], transport: @escaping @Sendable (StageRequest) async throws -> StageResponse) {
        self.stages = stages
        self.transport = transport
    }

    /// The standard stages for `configuration`, in the documented order; `observation` is the running exchange's
    /// (``ExchangeObservation/current``), when something watches it.
    static func standardStages(
        for configuration: ExchangeConfiguration, observation: ExchangeObservation? = nil
    ) -> [any ExchangeStage] {
        var stages = configuration.stages
        stages.append(DefaultHeadersStage(settings: configuration.settings))
        if !configuration.interceptors.isEmpty {
            stages.append(InterceptionStage(
                interceptors: configuration.interceptors, hooks: configuration.hooks
            ))
        }
        if let resumption = configuration.resumption, resumption.canResume {
            stages.append(ResumptionRestartStage(resumption: resumption))
        }
        if configuration.followsRedirects {
            stages.append(RedirectStage(
                maximumRedirects: configuration.maximumRedirects,
                hooks: configuration.hooks
            ))
        }
        // Without a credential, a store or a handler no challenge can be answered: the stage would only pass through.
        if configuration.credential != nil || configuration.credentialStore != nil || configuration.hooks.answersChallenges {
            stages.append(AuthenticationStage(configuration: configuration))
        }
        if let jar = configuration.cookieJar { stages.append(CookieStage(jar: jar)) }
        if let decoding = configuration.contentDecoding { stages.append(ContentDecodingStage(decoding: decoding)) }
        if let cache = configuration.cache { stages.append(CacheStage(cache: cache, hooks: configuration.hooks)) }
        if let observing = ObservationStage(observation) { stages.append(observing) }
        return stages
    }

    /// Runs `request` through every stage and the transport.
    public func send(_ request: StageRequest) async throws -> StageResponse {
        try await Next(pipeline: self, index: 0)(request)
    }

    /// The part of a pipeline after one stage; call it to pass the request on.
    public struct Next: Sendable {
        let pipeline: ExchangePipeline
        let index: Int

        /// Sends `request` through the remaining stages and the transport.
        public func callAsFunction(_ request: StageRequest) async throws -> StageResponse {
            guard index < pipeline.stages.count else { return try await pipeline.transport(request) }
            return try await pipeline.stages[index].respond(to: request, next: Next(pipeline: pipeline, index: index + 1))
        }
    }
}
