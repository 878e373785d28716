/// Where an ``Exchange`` is in its life.
public enum ExchangePhase: Sendable, Equatable {
    /// Created, not started.
    case idle
    /// Requests are on the wire: being connected, sent, waiting for a head, or followed up (redirects,
    /// authentication challenges) by the pipeline's stages.
    case awaitingResponse
    /// The final response's body is being delivered to the sink.
    case receivingBody
    /// Finished successfully.
    case completed
    /// Finished with an error.
    case failed
    /// Cancelled.
    case cancelled

    /// Whether the phase is final.
    public var isTerminal: Bool {
        switch self {
        case .completed, .failed, .cancelled: return true
        default: return false
        }
    }
}
