import Foundation
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a transfer's body goes: the exchange's memory, output stream or file sink.
enum TransferDestination: Sendable {
    case memory
    case stream(OutputStreamTarget)
    case file(URL)
}

/// One attempt of an operation: the exchange and where its body goes.
struct TransferPlan: Sendable {
    let exchange: Exchange
    let destination: TransferDestination
}

extension URLConnectionOperation {
    /// Runs attempt `n` in a task of its own once the previous attempt's task (a paused transfer winding down) has let
    /// go of the output, under the trace context of the place the operation was made when none is current.
    func launchAttempt(_ n: Int) {
        let madeIn = storage.withLock { $0.serviceContext }
        driver.launch(attempt: n) { [self] n in
            guard ServiceContext.current == nil, let madeIn else { return await runAttempt(n) }
            await ServiceContext.withValue(madeIn) { await runAttempt(n) }
        }
    }

    /// Takes the bytes of the attempt a pause stopped into the operation's buffer, once per attempt: called by the
    /// pause, and by the next attempt before it plans (a ``resume()`` on another thread can overtake the pause, and
    /// must not plan from a buffer the pause has not filled yet). The cancelled exchange takes no more bytes, so what
    /// it holds is what the next attempt continues; a late call for an older attempt changes nothing.
    func settleStoppedAttempt() {
        guard let (attempt, exchange) = driver.stoppedAttempt else { return }
        let kept = exchange.receivedData
        let total = exchange.receiveProgress.totalBytes
        storage.withLock { storage in
            guard storage.settledAttempt < attempt else { return }
            storage.settledAttempt = attempt
            if let kept, storage.output == nil, storage.outputFileURL == nil { storage.buffer = kept }
            storage.totalBytesRead = total
        }
        // Only once the bytes are in the storage: a caller that then finds no stopped exchange finds them there.
        driver.releaseStopped(attempt: attempt)
    }

    private func runAttempt(_ n: Int) async {
        let plan: TransferPlan
        do {
            guard let made = try makePlan(attempt: n) else { return }
            plan = made
        } catch {
            finishAttempt(n, destination: .memory, error: error)
            return
        }
        guard driver.register(plan.exchange, attempt: n) else { return }
        // A cancel racing the start may have found the operation still ready, and so not reached the driver.
        if isCancelled { plan.exchange.cancel() }
        do {
            let result = try await plan.exchange.result()
            storage.withLock { storage in
                guard driver.counts(attempt: n) else { return }
                storage.response = result.response
                switch plan.destination {
                case .memory:
                    storage.buffer = result.data ?? Data()
                case .stream:
                    // An error status answering a resumed transfer went to memory; the stream keeps its bytes.
                    if result.resumption == .unrelated { storage.responseData = result.data }
                case .file:
                    break
                }
            }
            finishAttempt(n, destination: plan.destination, error: nil)
        } catch {
            if case .memory = plan.destination, let partial = plan.exchange.receivedData {
                storage.withLock { storage in
                    if driver.counts(attempt: n) { storage.buffer = partial }
                }
            }
            finishAttempt(n, destination: plan.destination, error: error)
        }
    }

    /// The exchange for the next transfer: a range request for the rest when the output keeps
    /// bytes and the last response has a validator, otherwise the whole request from the start.
    private func makePlan(attempt n: Int) throws -> TransferPlan? {
        // The previous attempt has ended (this one awaited its task), so a stopped exchange's bytes are final.
        settleStoppedAttempt()
        let snapshot = storage.withLock { storage in driver.counts(attempt: n) ? storage : nil }
        guard let snapshot else { return nil }
        var request = snapshot.request
        // An earlier attempt read the body stream.
        if n > 1 { request = try request.withFreshMultipartBodyStream() }

        let destination: TransferDestination
        let kept: Int64
        if let url = snapshot.outputFileURL {
            destination = .file(url)
            kept = snapshot.keepsPartialOutput ? Self.fileSize(url) : 0
        } else if let target = snapshot.output {
            destination = .stream(target)
            kept = target.bytesWritten
        } else {
            destination = .memory
            kept = snapshot.keepsPartialOutput ? Int64(snapshot.buffer.count) : 0
        }
        var resumption: DownloadResumption?
        if resumesWithRange, kept > 0, let response = snapshot.response {
            let candidate = DownloadResumption(offset: kept, response: response)
            if candidate.canResume { resumption = candidate }
        }
        if resumption == nil {
            if case .stream = destination, kept > 0 { throw OperationError.outputCannotRestart(bytesWritten: kept) }
            storage.withLock { $0.buffer = Data() }
        }

        var settings = snapshot.settings
        // The body limit is for a body held in memory; a file or a stream is not limited.
        if case .memory = destination {} else { settings.maximumBodySize = nil }
        let transport = snapshot.transport ?? OperationTransport.transport(for: snapshot.securityPolicy, proxy: snapshot.proxy)
        var configuration = ExchangeConfiguration(transport: transport, settings: settings)
        var stream: OutputStreamTarget?
        switch destination {
        case .file(let url):
            configuration.sink = .file(url, offset: resumption == nil ? 0 : kept)
        case .stream(let target):
            configuration.sink = .outputStream(target)
            stream = target
        case .memory:
            configuration.sink = resumption == nil ? .memory : .memoryContinuing(snapshot.buffer)
        }
        configuration.resumption = resumption
        configuration.hooks = OperationExchangeHooks(
            operation: self, attempt: n, blocks: snapshot.blocks, stream: stream,
            multipartRequest: request.httpBodyStream is MultipartBodyStream ? request : nil
        )
        let exchange = Exchange(request: request, configuration: configuration)
        return TransferPlan(exchange: exchange, destination: destination)
    }

    private func finishAttempt(_ n: Int, destination: TransferDestination, error: (any Error)?) {
        let cancelled = isCancelled
        let current = storage.withLock { storage in
            guard driver.counts(attempt: n) else { return false }
            storage.keepsPartialOutput = false
            storage.error = cancelled ? URLError(.cancelled) : error
            switch destination {
            case .memory:
                storage.responseData = storage.buffer
                storage.totalBytesRead = Int64(storage.buffer.count)
                storage.buffer = Data()
            case .stream(let target):
                storage.totalBytesRead = target.bytesWritten
            case .file(let url):
                storage.totalBytesRead = Self.fileSize(url)
            }
            return true
        }
        guard current else { return }
        if case .stream(let target) = destination { target.close() }
        transferDidFinish()
        complete()
    }

    static func fileSize(_ url: URL) -> Int64 {
        FileStatus.size(atPath: url.path) ?? 0
    }
}
