/// The phases of one request's life, as a value with pure transitions.
///
/// The I/O shell (``Exchange``) feeds it events and performs the actions it returns; the
/// machine itself does no I/O, so every transition is unit-tested on its own. Events that make
/// no sense in the current phase are ignored (`.none`), never a crash: a late `cancel()` after
/// completion, a second `start()`, a body chunk before the head.
public struct ExchangeStateMachine: Sendable, Equatable {
    /// Where the exchange is.
    public enum Phase: Sendable, Equatable {
        /// Created, not started.
        case idle
        /// A request is on the wire (being connected, sent, or waiting for its head).
        case awaitingResponse
        /// A response asked for a follow-up request (a redirect or an authentication retry),
        /// which is being prepared.
        case followingUp(FollowUp)
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

    /// Why another request follows the current one.
    public enum FollowUp: Sendable, Equatable {
        /// A 3xx response with a `Location`.
        case redirect
        /// A 401 the exchange can answer with a credential.
        case authentication
        /// A resumed download whose answer does not fit the kept bytes: ask again for everything.
        case restart
    }

    /// What kind of response head arrived.
    public enum HeadKind: Sendable, Equatable {
        /// A redirect the exchange may follow.
        case redirect
        /// An authentication challenge the exchange may answer.
        case challenge
        /// An answer to a resumed download that does not fit the kept bytes.
        case resumptionMismatch
        /// Anything else: its body is the result.
        case final
    }

    /// What the I/O shell must do after an event.
    public enum Action: Sendable, Equatable {
        /// Nothing.
        case none
        /// Send the (next) request.
        case sendRequest
        /// Prepare the follow-up: ask the redirect hook, or decide on a credential.
        case prepareFollowUp(FollowUp)
        /// Stream the response body to the sink.
        case deliverBody
        /// Stop reading from the socket (keep the connection).
        case suspendReading
        /// Read again.
        case resumeReading
        /// Abort whatever is in flight.
        case cancelTransport
        /// Fail with this reason.
        case fail(Failure)
    }

    /// Failures the machine itself decides.
    public enum Failure: Sendable, Equatable {
        /// More redirects than allowed.
        case tooManyRedirects(limit: Int)
    }

    /// The current phase.
    public private(set) var phase: Phase = .idle
    /// Whether reading is paused (orthogonal to the phase; meaningful until the exchange ends).
    public private(set) var isPaused = false
    /// How many redirects have been followed.
    public private(set) var redirectCount = 0
    /// How many authentication retries have been sent.
    public private(set) var authenticationRetries = 0
    /// The most redirects to follow. Default 16.
    public let maximumRedirects: Int

    /// Creates a machine in `.idle`.
    /// - Parameter maximumRedirects: The most redirects to follow. Default 16.
    public init(maximumRedirects: Int = 16) {
        self.maximumRedirects = maximumRedirects
    }

    /// Starts the exchange.
    public mutating func start() -> Action {
        guard phase == .idle else { return .none }
        phase = .awaitingResponse
        return .sendRequest
    }

    /// A response head arrived.
    public mutating func receivedHead(_ kind: HeadKind) -> Action {
        guard phase == .awaitingResponse else { return .none }
        switch kind {
        case .redirect:
            phase = .followingUp(.redirect)
            return .prepareFollowUp(.redirect)
        case .challenge:
            phase = .followingUp(.authentication)
            return .prepareFollowUp(.authentication)
        case .resumptionMismatch:
            phase = .followingUp(.restart)
            return .prepareFollowUp(.restart)
        case .final:
            phase = .receivingBody
            return .deliverBody
        }
    }

    /// The follow-up request is ready: send it (or fail when the redirect limit is exceeded).
    public mutating func follow() -> Action {
        guard case .followingUp(let reason) = phase else { return .none }
        switch reason {
        case .redirect:
            guard redirectCount < maximumRedirects else {
                phase = .failed
                return .fail(.tooManyRedirects(limit: maximumRedirects))
            }
            redirectCount += 1
        case .authentication:
            authenticationRetries += 1
        case .restart:
            break
        }
        phase = .awaitingResponse
        return .sendRequest
    }

    /// The follow-up was declined (the hook refused the redirect, no credential was found):
    /// the response itself is the result.
    public mutating func decline() -> Action {
        guard case .followingUp = phase else { return .none }
        phase = .receivingBody
        return .deliverBody
    }

    /// The body has been delivered completely.
    public mutating func bodyFinished() -> Action {
        guard phase == .receivingBody else { return .none }
        phase = .completed
        isPaused = false
        return .none
    }

    /// Something failed (transport, sink, hook).
    public mutating func fail() -> Action {
        guard !phase.isTerminal else { return .none }
        phase = .failed
        isPaused = false
        return .none
    }

    /// The caller cancelled.
    public mutating func cancel() -> Action {
        guard !phase.isTerminal else { return .none }
        let wasIdle = phase == .idle
        phase = .cancelled
        isPaused = false
        return wasIdle ? .none : .cancelTransport
    }

    /// The caller paused: stop reading, keep the connection.
    public mutating func pause() -> Action {
        guard !phase.isTerminal, !isPaused else { return .none }
        isPaused = true
        return phase == .idle ? .none : .suspendReading
    }

    /// The caller resumed after a pause.
    public mutating func resume() -> Action {
        guard !phase.isTerminal, isPaused else { return .none }
        isPaused = false
        return phase == .idle ? .none : .resumeReading
    }
}
