/// What an exchange does with the final response's body, decided by ``ExchangeHooks/decideBody(of:resumption:)`` once
/// the head has arrived (URLSession's response disposition, in the exchange's terms).
public enum BodyDecision: Sendable {
    /// Deliver it to the configured sink.
    case receive
    /// Hand it to the caller unread: ``ExchangeResult/body`` streams it, as for the `.stream` sink.
    case handOver
    /// Drop it: the exchange cancels the body and fails with `error`.
    case refuse(any Error)
}
