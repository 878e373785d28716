import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The final response's body: which sink takes it (a resumed download's kept bytes decide), the body allowance, the
/// progress, and the end of the body that ends the exchange.
extension Exchange {
    /// A `206` is a part of something only a range request can ask for; to a request without `Range`
    /// it would be taken for the whole body.
    /// - Throws: `URLError(.badServerResponse)`.
    func refuseUnaskedPartialContent(_ response: StageResponse) throws {
        guard response.head.statusCode == 206, response.request.value(forHTTPHeaderField: "Range") == nil else { return }
        response.body.cancel()
        throw URLError(.badServerResponse, userInfo: [
            NSURLErrorFailingURLErrorKey: response.request.url as Any,
            NSLocalizedDescriptionKey: "The server answered 206 Partial Content to a request that asked for no range.",
        ])
    }

    func deliver(_ response: StageResponse) async throws -> ExchangeResult {
        // The range request stood when the final request still carries `Range` (the restart stage drops it).
        let resumption = configuration.resumption.flatMap {
            $0.canResume && response.request.value(forHTTPHeaderField: "Range") != nil ? $0 : nil
        }
        let head = response.head
        let outcome = resumptionOutcome(of: head, activeResumption: resumption)
        let continuation: ContentRange? = if case .continued = outcome { resumption?.continuation(in: head) } else { nil }
        let kept = continuation?.start ?? 0
        let length = continuation?.length ?? head.expectedContentLength
        let (total, overflow) = kept.addingReportingOverflow(length)
        let received = TransferProgress(bytesThisTime: 0, totalBytes: kept, totalBytesExpected: length < 0 || overflow ? -1 : total)
        state.withLock { state in
            state.response = head
            state.received = received
        }
        var allowance = BodyAllowance(exactLength: continuation?.length, maximum: configuration.maximumBodySize, kept: kept, url: response.request.url)
        do {
            try allowance.checkAnnounced(head.expectedContentLength)
        } catch {
            response.body.cancel()
            throw error
        }
        let hooks = configuration.hooks
        hooks.didReceive(response: head)
        if let outcome { hooks.didDecideResumption(outcome, progress: received) }
        let decision = await hooks.decideBody(of: head, resumption: outcome)
        func result(data: Data?, body: ResponseBodyStream?) -> ExchangeResult {
            ExchangeResult(
                request: response.request, response: head, data: data, body: body,
                bytesReceived: receiveProgress.totalBytes - kept, redirectCount: response.redirectCount,
                resumption: outcome, metrics: metrics
            )
        }

        let target = sink(for: outcome, kept: kept)
        let initialMemory: Data? = switch target {
        case .memory: Data()
        case .memoryContinuing(let keptBytes): keptBytes
        default: nil
        }
        switch decision {
        case .refuse(let error):
            response.body.cancel()
            throw BodyRefusal(error: error)
        case .handOver:
            return result(data: nil, body: ResponseBodyStream(ObservedBody(base: response.body, exchange: self, allowance: allowance), cancel: response.body.cancel))
        case .receive:
            if target.isStream {
                return result(data: nil, body: ResponseBodyStream(ObservedBody(base: response.body, exchange: self, allowance: allowance), cancel: response.body.cancel))
            }
        }
        if outcome == .alreadyComplete {
            response.body.cancel()
            state.withLock { $0.memoryBody = initialMemory }
            bodyDidEnd(error: nil)
            return result(data: initialMemory ?? Data(), body: nil)
        }
        var writer: (any BodyWriter)?
        do {
            writer = try await target.makeWriter()
        } catch {
            response.body.cancel()
            throw error
        }
        let keepsInMemory = writer == nil
        if keepsInMemory { state.withLock { $0.memoryBody = initialMemory } }
        do {
            for try await chunk in response.body {
                if !allowance.isUnlimited { try allowance.admit(chunk.count) }
                try await writer?.write(chunk)
                try didReceive(chunk.count, keeping: keepsInMemory ? chunk : nil)
                hooks.didReceive(data: chunk)
                try await waitWhilePaused()
            }
            try allowance.finish()
            try await writer?.finish()
            bodyDidEnd(error: nil)
            return result(data: keepsInMemory ? receivedData ?? Data() : nil, body: nil)
        } catch {
            await writer?.abandon()
            response.body.cancel()
            throw error
        }
    }

    /// How the final response treats the bytes a resumed download kept: judged by the range request
    /// when one went out, else (the resumption could not be used, or was dropped after a mismatch) as
    /// the answer to a request for the whole resource. `nil` when nothing was kept.
    private func resumptionOutcome(of response: HTTPURLResponse, activeResumption: DownloadResumption?) -> ResumptionOutcome? {
        if let activeResumption { return activeResumption.outcome(of: response) }
        return configuration.resumption.map { _ in DownloadResumption.outcome(ofFullRequest: response) }
    }

    /// The sink for the final body: a resumed file continues after its kept bytes, or starts over
    /// (truncated before the first byte) whenever the body does not continue them; an unrelated
    /// answer (an error status) goes to memory so the kept bytes stay untouched.
    private func sink(for outcome: ResumptionOutcome?, kept: Int64) -> ResponseSink {
        switch (configuration.sink, outcome) {
        case (.file(let url, _), .continued?):
            return .file(url, offset: kept)
        case (_, .unrelated?):
            return .memory
        case (.file(let url, _), _?):
            return .file(url, offset: 0)
        case (.memoryContinuing, .continued?), (.memoryContinuing, .alreadyComplete?):
            return configuration.sink
        case (.memoryContinuing, _):
            return .memory
        default:
            return configuration.sink
        }
    }

    /// Counts a chunk of the final body; with `keeping`, the memory sink's chunk, appends it (refused once the
    /// exchange is cancelled, so what ``receivedData`` held at ``cancel()`` is what it keeps).
    func didReceive(_ count: Int, keeping chunk: Data? = nil) throws {
        let progress = try state.withLock { state in
            if let chunk {
                if state.machine.phase == .cancelled { throw URLError(.cancelled) }
                if state.memoryBody?.isEmpty ?? true {
                    state.memoryBody = chunk
                } else {
                    state.memoryBody?.append(chunk)
                }
            }
            state.received.bytesThisTime = Int64(count)
            state.received.totalBytes += Int64(count)
            return state.received
        }
        configuration.hooks.didReceiveBody(progress)
    }

    /// The final body ended (`error == nil`: completely) or failed.
    func bodyDidEnd(error: (any Error)?) {
        let now = Date()
        state.withLock { state in
            if let last = state.metrics.transactions.indices.last { state.metrics.transactions[last].responseEnd = now }
            state.metrics.end = now
            _ = error == nil ? state.machine.bodyFinished() : state.machine.fail()
        }
    }

    /// A `.stream` body ended; for the other sinks the run's end reports it.
    func streamDidEnd(error: (any Error)?) {
        bodyDidEnd(error: error)
        if state.withLock({ $0.postsNotifications }) {
            postRequestNotification(.courierRequestDidFinish, error: error)
        }
    }
}

/// The error of a ``BodyDecision/refuse(_:)``, kept apart from the exchange's own cancellation.
struct BodyRefusal: Error {
    let error: any Error
}

/// A `.stream` sink's body: counts progress, holds the body to its allowance, honours pause, and
/// ends the exchange.
private struct ObservedBody: AsyncSequence, Sendable {
    let base: ResponseBodyStream
    let exchange: Exchange
    let allowance: BodyAllowance

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), exchange: exchange, allowance: allowance)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBodyStream.Iterator
        let exchange: Exchange
        var allowance: BodyAllowance

        mutating func next() async throws -> Data? {
            do {
                try await exchange.waitWhilePaused()
                guard let chunk = try await base.next() else {
                    try allowance.finish()
                    exchange.streamDidEnd(error: nil)
                    return nil
                }
                if !allowance.isUnlimited { try allowance.admit(chunk.count) }
                try exchange.didReceive(chunk.count)
                return chunk
            } catch {
                exchange.streamDidEnd(error: error)
                throw error
            }
        }
    }
}

extension ResponseSink {
    var isStream: Bool {
        if case .stream = self { return true }
        return false
    }
}
