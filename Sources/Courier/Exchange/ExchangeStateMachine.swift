/// The phases of one exchange, as a value with pure transitions.
///
/// The I/O shell (``Exchange``) feeds it events and performs every action it returns; the machine does no I/O, so
/// each transition is unit-tested on its own. Events that make no sense in the current phase return `.none`, never
/// a crash: a late `cancel()` after completion, a second `start()`, a head after cancellation. Follow-up requests
/// (redirects, challenges) are the pipeline's business and never leave `.awaitingResponse`.
struct ExchangeStateMachine: Sendable, Equatable {
    /// What the shell must do after an event.
    enum Action: Sendable, Equatable {
        /// Nothing.
        case none
        /// Run the pipeline.
        case sendRequest
        /// Stream the final response's body to the sink.
        case deliverBody
        /// Close the pause gate: the body reader waits before its next chunk.
        case suspendReading
        /// Open the pause gate.
        case resumeReading
        /// Abort whatever is in flight: the transport's request, the body, a paused reader, the exchange's task.
        case cancelTransport
        /// Nothing is in flight yet: make later waits fail at once.
        case refuseStart
    }

    /// The current phase.
    private(set) var phase: ExchangePhase = .idle
    /// Whether reading is paused (orthogonal to the phase; meaningful until the exchange ends).
    private(set) var isPaused = false

    /// The exchange starts.
    mutating func start() -> Action {
        guard phase == .idle else { return .none }
        phase = .awaitingResponse
        return .sendRequest
    }

    /// The pipeline returned the final response head.
    mutating func receivedHead() -> Action {
        guard phase == .awaitingResponse else { return .none }
        phase = .receivingBody
        return .deliverBody
    }

    /// The body has been delivered completely (or there was none to deliver).
    mutating func bodyFinished() -> Action {
        guard phase == .receivingBody else { return .none }
        phase = .completed
        isPaused = false
        return .none
    }

    /// Something failed (transport, stage, sink).
    mutating func fail() -> Action {
        guard !phase.isTerminal else { return .none }
        phase = .failed
        isPaused = false
        return .none
    }

    /// The caller cancelled.
    mutating func cancel() -> Action {
        guard !phase.isTerminal else { return .none }
        let wasIdle = phase == .idle
        phase = .cancelled
        isPaused = false
        return wasIdle ? .refuseStart : .cancelTransport
    }

    /// The caller paused: the reader stops before its next chunk, the connection stays open. A pause before the
    /// start holds the first chunk.
    mutating func pause() -> Action {
        guard !phase.isTerminal, !isPaused else { return .none }
        isPaused = true
        return .suspendReading
    }

    /// The caller resumed after a pause.
    mutating func resume() -> Action {
        guard !phase.isTerminal, isPaused else { return .none }
        isPaused = false
        return .resumeReading
    }
}
