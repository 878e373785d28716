import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLConnectionOperation {
    /// Pauses the operation (an executing operation stops, keeping its bytes) and describes it.
    ///
    /// With `pausing: false` a running operation is described as it stands and goes on: a record to keep while the
    /// transfer runs (as `courier batch` keeps one beside each partial file), whose resumption counts the bytes
    /// received so far (the next transfer measures the output file itself). Default `true`.
    public func makeArchive(pausing: Bool = true) -> OperationArchive {
        if pausing { pause() }
        // A pause on another thread may have stopped the attempt without having taken its bytes yet: take them here
        // (once per attempt, whoever comes first), so the record holds what was received.
        settleStoppedAttempt()
        return storage.withLock { storage in
            let interrupted = storage.machine.state != .finished
            var resumption: DownloadResumption?
            if interrupted, let url = storage.outputFileURL, let response = storage.response {
                // The stopped exchange may still be writing its last gathered chunks: the bytes it received are the
                // ones the file will hold. (The next transfer measures the file itself, so a process that ends first
                // still continues from what reached the disk.)
                let received = driver.exchange?.receiveProgress.totalBytes ?? storage.totalBytesRead
                resumption = DownloadResumption(offset: max(Self.fileSize(url), received), response: response)
            }
            return OperationArchive(
                request: .init(storage.request),
                state: interrupted ? .ready : .finished,
                response: storage.response.map(OperationArchive.Response.init),
                error: storage.error.map(OperationArchive.ErrorRecord.init),
                responseData: storage.responseData,
                totalBytesRead: storage.totalBytesRead,
                partialData: interrupted && storage.outputFileURL == nil && storage.output == nil && !storage.buffer.isEmpty ? storage.buffer : nil,
                outputFilePath: storage.outputFileURL?.path,
                resumption: resumption
            )
        }
    }

    /// Restores what `archive` describes into this new operation, once ``OperationArchive/validated()`` accepts it.
    func restore(from untrusted: OperationArchive) throws(OperationArchiveError) {
        let archive = try untrusted.validated()
        storage.withLock { storage in
            storage.machine = OperationStateMachine(state: archive.state)
            storage.response = archive.response?.makeResponse(fallback: archive.request.url)
            storage.error = archive.error?.makeError()
            storage.responseData = archive.responseData
            storage.totalBytesRead = archive.totalBytesRead
            storage.outputFileURL = archive.outputFilePath.map { URL(fileURLWithPath: $0) }
            if let partial = archive.partialData {
                storage.buffer = partial
                storage.keepsPartialOutput = true
            }
            if archive.resumption != nil, storage.outputFileURL != nil {
                storage.keepsPartialOutput = true
            }
        }
        // A finished archive is a finished operation: its waiters return at once.
        if archive.state == .finished { _ = driver.complete() }
    }
}
