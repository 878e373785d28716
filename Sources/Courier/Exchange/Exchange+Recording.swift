import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the wire and the cache tell an exchange: its current request, request-body progress, response head and
/// per-request metrics, kept in its state as each hop happens.
extension Exchange: TransmissionRecorder {
    func willTransmit(_ request: URLRequest, expectedBodyBytes: Int64) throws {
        let now = Date()
        let cancelled = state.withLock { state -> Bool in
            guard state.machine.phase != .cancelled else { return true }
            state.sent = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: expectedBodyBytes)
            state.currentRequest = request
            // The previous hop's body was abandoned for this follow-up.
            if let last = state.metrics.transactions.indices.last, state.metrics.transactions[last].responseEnd == nil {
                state.metrics.transactions[last].responseEnd = now
            }
            state.metrics.transactions.append(.init(request: request, requestStart: now))
            return false
        }
        if cancelled { throw cancelledError() }
    }

    func didTransmitBodyBytes(_ count: Int64) {
        let progress = state.withLock { state in
            state.sent.bytesThisTime = count
            state.sent.totalBytes += count
            return state.sent
        }
        configuration.hooks.didSendBody(progress)
    }

    func didReceive(_ response: TransportResponse) {
        let arrived = Date()
        state.withLock { state in
            state.response = response.head
            state.body = response.body
            let last = state.metrics.transactions.count - 1
            state.metrics.transactions[last].response = response.head
            state.metrics.transactions[last].httpVersion = response.httpVersion
            state.metrics.transactions[last].connection = response.connection
            state.metrics.transactions[last].staleConnectionRetries = response.staleConnectionRetries
            state.metrics.transactions[last].responseStart = arrived
        }
    }

    /// A final response from the cache: a transaction without the wire for a stored answer (after a `304`, the
    /// conditional request's transaction stays the last), and the response as the exchange's.
    func recordCacheAnswer(_ response: StageResponse) {
        let now = Date()
        state.withLock { state in
            state.response = response.head
            state.metrics.responseSource = response.source
            guard response.source == .cache else { return }
            var transaction = ExchangeMetrics.Transaction(request: response.request, requestStart: now)
            transaction.response = response.head
            transaction.httpVersion = response.transportResponse.httpVersion
            transaction.responseStart = now
            transaction.isFromCache = true
            state.metrics.transactions.append(transaction)
        }
    }
}
