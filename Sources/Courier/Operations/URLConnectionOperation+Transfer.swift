import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a transfer's body goes.
enum TransferDestination: Sendable {
    case memory
    case stream(OutputStreamBox)
    case file(URL)
}

/// One transfer of an operation: the exchange and where its body goes.
struct TransferPlan: Sendable {
    let exchange: Exchange
    let destination: TransferDestination
    let generation: Int
}

extension URLConnectionOperation {
    /// Starts a transfer after the previous one (a paused transfer winding down) has let go of
    /// the output.
    func beginTransfer() {
        let (generation, previous) = storage.withLock { storage in
            storage.generation += 1
            return (storage.generation, storage.runner)
        }
        let runner = Task { [self] in
            await previous?.value
            await runTransfer(generation: generation)
        }
        storage.withLock { storage in
            if storage.generation == generation { storage.runner = runner }
        }
    }

    /// Stops the running transfer. A pause makes its outcome irrelevant (the bytes stay in the
    /// output); a cancel lets it finish the operation with `URLError(.cancelled)`.
    func stopTransfer() {
        let pausing = state == .paused
        let (exchange, runner) = storage.withLock { storage in
            if pausing {
                storage.generation += 1
                storage.keepsPartialOutput = true
            }
            return (storage.exchange, storage.runner)
        }
        exchange?.cancel()
        // Also wakes a body read that is waiting for the next chunk.
        runner?.cancel()
    }

    private func runTransfer(generation: Int) async {
        let plan: TransferPlan
        do {
            guard let made = try makePlan(generation: generation) else { return }
            plan = made
        } catch {
            finishTransfer(generation: generation, destination: .memory, error: error)
            return
        }
        let registered = storage.withLock { storage in
            guard storage.generation == generation else { return false }
            storage.exchange = plan.exchange
            return true
        }
        guard registered else { return }
        if isCancelled { plan.exchange.cancel() }
        do {
            let result = try await plan.exchange.result()
            try await receive(result, plan: plan)
            finishTransfer(generation: generation, destination: plan.destination, error: nil)
        } catch {
            finishTransfer(generation: generation, destination: plan.destination, error: error)
        }
    }

    /// The exchange for the next transfer: a range request for the rest when the output keeps
    /// bytes and the last response has a validator, otherwise the whole request from the start.
    private func makePlan(generation: Int) throws -> TransferPlan? {
        let snapshot = storage.withLock { storage -> OperationStorage? in
            guard storage.generation == generation else { return nil }
            storage.exchangeCount += 1
            return storage
        }
        guard let snapshot else { return nil }
        var request = snapshot.request
        if snapshot.exchangeCount > 1 { request = try request.withFreshMultipartBodyStream() }

        let destination: TransferDestination
        let kept: Int64
        if let url = snapshot.outputFileURL {
            destination = .file(url)
            kept = snapshot.keepsPartialOutput ? Self.fileSize(url) : 0
        } else if let box = snapshot.output {
            destination = .stream(box)
            kept = snapshot.streamBytes
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

        var configuration = ExchangeConfiguration(transport: snapshot.transport ?? OperationTransport.transport(for: snapshot.securityPolicy))
        if case .file(let url) = destination {
            configuration.sink = .file(url, offset: resumption == nil ? 0 : kept)
        } else {
            configuration.sink = .stream
        }
        configuration.stages = snapshot.stages
        configuration.resumption = resumption
        configuration.credential = snapshot.credential
        if case .memory = destination { configuration.maximumBodySize = snapshot.maximumResponseDataSize }
        configuration.credentialStore = snapshot.shouldUseCredentialStorage ? CredentialStore.shared : nil
        configure(&configuration, blocks: snapshot.blocks)
        configuration.didReceiveResponse = { [weak self] head in
            self?.storage.withLock { storage in
                if storage.generation == generation { storage.response = head }
            }
        }
        let exchange = Exchange(request: request, configuration: configuration)
        return TransferPlan(exchange: exchange, destination: destination, generation: generation)
    }

    /// Wires the operation's blocks into an exchange: progress on the main queue (as
    /// AFNetworking's), redirects and challenges on the exchange's task.
    private func configure(_ configuration: inout ExchangeConfiguration, blocks: OperationBlocks) {
        configuration.challengeHandler = blocks.authenticationChallenge
        if let redirect = blocks.redirectResponse {
            configuration.redirectHandler = { proposed, response in redirect(proposed, response) }
        }
        if let upload = blocks.uploadProgress {
            configuration.uploadProgress = { progress in
                DispatchQueue.main.async { upload(Int(progress.bytesThisTime), progress.totalBytes, progress.totalBytesExpected) }
            }
        }
        if let download = blocks.downloadProgress {
            configuration.downloadProgress = { progress in
                DispatchQueue.main.async { download(Int(progress.bytesThisTime), progress.totalBytes, progress.totalBytesExpected) }
            }
        }
    }

    /// Reads a streamed body into memory or the output stream. What the output already holds is
    /// kept only when the server continued it (206) or had nothing more to send.
    private func receive(_ result: ExchangeResult, plan: TransferPlan) async throws {
        let continues = switch result.resumption {
        case .continued?, .alreadyComplete?: true
        default: false
        }
        storage.withLock { $0.response = result.response }
        switch plan.destination {
        case .file:
            return
        case .memory:
            if result.resumption == .unrelated {
                storage.withLock { $0.buffer = result.data ?? Data() }
                return
            }
            if !continues { storage.withLock { $0.buffer = Data() } }
            guard let body = result.body else { return }
            for try await chunk in body {
                storage.withLock { storage in
                    storage.buffer.append(chunk)
                    storage.totalBytesRead = Int64(storage.buffer.count)
                }
            }
        case .stream(let box):
            if result.resumption == .unrelated {
                storage.withLock { $0.responseData = result.data }
                return
            }
            let written = storage.withLock { $0.streamBytes }
            if !continues && written > 0 {
                result.body?.cancel()
                throw OperationError.outputCannotRestart(bytesWritten: written)
            }
            let opens = storage.withLock { storage in
                defer { storage.streamOpened = true }
                return !storage.streamOpened
            }
            if opens { box.target.open() }
            guard let body = result.body else { return }
            for try await chunk in body {
                try await box.target.write(chunk)
                storage.withLock { storage in
                    storage.streamBytes += Int64(chunk.count)
                    storage.totalBytesRead = storage.streamBytes
                }
            }
        }
    }

    private func finishTransfer(generation: Int, destination: TransferDestination, error: (any Error)?) {
        let cancelled = isCancelled
        let current = storage.withLock { storage in
            guard storage.generation == generation else { return false }
            storage.exchange = nil
            storage.runner = nil
            storage.keepsPartialOutput = false
            storage.error = cancelled ? URLError(.cancelled) : error
            switch destination {
            case .memory:
                storage.responseData = storage.buffer
                storage.totalBytesRead = Int64(storage.buffer.count)
                storage.buffer = Data()
            case .stream:
                storage.totalBytesRead = storage.streamBytes
            case .file(let url):
                storage.totalBytesRead = Self.fileSize(url)
            }
            return true
        }
        guard current else { return }
        if case .stream(let box) = destination, storage.withLock({ $0.streamOpened }) { box.target.close() }
        offerResponseToCache()
        transferDidFinish()
        complete()
    }

    static func fileSize(_ url: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
