import Synchronization

/// Limits how much retries add to the load on a failing backend: a token bucket, after Finagle's and gRPC's retry
/// budgets.
///
/// Every first attempt deposits ``ratio`` of a token (up to ``maximumBalance``); every retry withdraws a whole one
/// and is refused when less than one is left. A backend that fails every request thus sees at most
/// `1 + ratio` times its requests (plus the few retries of the initial balance), never `1 + retryLimit` times.
public final class RetryBudget: Sendable {
    /// The share of requests that may be retried. Default 0.2 (retries add at most 20 % to the load).
    public let ratio: Double
    /// The balance a budget starts with and may save up to, so that a few retries are possible at any time,
    /// however few requests there are. Default 10.
    public let maximumBalance: Double

    private let balance: Mutex<Double>

    /// A budget letting retries add `ratio` of the requests (default 0.2, at least 0), saving up to
    /// `maximumBalance` tokens (default 10, at least 1).
    public init(ratio: Double = 0.2, maximumBalance: Double = 10) {
        let ratio = ratio.isFinite ? max(0, ratio) : 0
        let maximum = maximumBalance.isFinite ? max(1, maximumBalance) : 10
        self.ratio = ratio
        self.maximumBalance = maximum
        self.balance = Mutex(maximum)
    }

    /// A first attempt was sent: deposits ``ratio`` of a token.
    public func recordRequest() {
        balance.withLock { $0 = min(maximumBalance, $0 + ratio) }
    }

    /// Withdraws a token for one retry; false (and nothing withdrawn) when less than one is left.
    public func withdrawForRetry() -> Bool {
        balance.withLock { balance in
            guard balance >= 1 else { return false }
            balance -= 1
            return true
        }
    }

    /// The tokens left.
    public var availableTokens: Double { balance.withLock { $0 } }
}
