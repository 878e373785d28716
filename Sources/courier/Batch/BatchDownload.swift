import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One file of a batch: the operation that streams its body to `OUTPUT.part` (continuing what an earlier run kept),
/// checks it and gives it its final name, and how it ended. Both ways a batch runs use it: the operation queue of
/// `courier batch FILE`, and the durable queue's performer of `courier batch --queue` (``BatchJobPerformer``).
final class BatchDownload: Sendable {
    /// How a download ended.
    struct Ending: Sendable {
        /// The line and the summary's row.
        let result: BatchResult
        /// The response, if one came.
        let response: HTTPURLResponse?
        /// Why it failed: the operation's error, or the check the file did not pass; `nil` on success.
        let failure: (any Error)?
    }

    let entry: BatchFile.Entry
    let parts: BatchRun.RequestParts
    let resumeFile: BatchResumeFile
    /// The bytes a stop (Ctrl-C, SIGTERM, a worker stopping, `--max-time`) archived to be continued.
    private let keptByStop = Mutex<Int64?>(nil)
    /// Whether `--max-time` stopped it.
    private let expired = Atomic<Bool>(false)

    init(entry: BatchFile.Entry, parts: BatchRun.RequestParts) {
        self.entry = entry
        self.parts = parts
        resumeFile = BatchResumeFile(output: entry.output)
    }

    /// Stops `operation` (this download's), archiving what it received first so that the next run continues it.
    func stop(_ operation: HTTPRequestOperation) {
        if operation.isExecuting, let kept = resumeFile.store(operation, pausing: true) {
            keptByStop.withLock { $0 = kept }
        }
        operation.cancel()
    }

    /// Stops `operation` (this download's) because `--max-time` ran out, keeping its bytes for the next run.
    func expire(_ operation: HTTPRequestOperation) {
        expired.store(true, ordering: .relaxed)
        stop(operation)
    }

    /// The result of a download an earlier run finished and verified (and that is unchanged since), if it is one.
    /// A file the list gives a digest for that is already at its output with that digest counts as finished too
    /// (where HTTPie and xh would fail on the existing file).
    func finishedEarlier(in finishedFiles: BatchFinishedFiles) -> BatchResult? {
        let listed = entry.listedURL ?? entry.url
        var saved = finishedFiles.finished(listed, output: entry.output)
        if saved == nil, let checksum = entry.checksum, (try? checksum.matches(entry.output)) == true,
           entry.size == nil || (try? IntegrityCheck.size(of: entry.output)) == entry.size {
            saved = entry.output
        }
        guard let saved else { return nil }
        return BatchResult(url: listed, status: nil, bytes: (try? IntegrityCheck.size(of: saved)) ?? 0,
                           seconds: 0, output: saved, failure: nil, alreadyComplete: true)
    }

    /// Checks `file` against what the list says of it (a manifest's `size`, `sha256`/`sha512`, or `--checksums`).
    /// - Throws: ``IntegrityCheck/Mismatch`` on a difference; the errors of reading the file.
    private func verifyListed(_ file: URL) throws {
        if let size = entry.size {
            let actual = try IntegrityCheck.size(of: file)
            guard actual == size else {
                throw IntegrityCheck.Mismatch(message: "size \(actual) bytes, but the list says \(size)")
            }
        }
        if let checksum = entry.checksum {
            let actual = try IntegrityCheck.hash(file, from: 0, algorithm: checksum.algorithm)
            guard actual == checksum.digest else {
                throw IntegrityCheck.Mismatch(message: "\(checksum.algorithm.rawValue) \(ExpectedChecksum.hex(actual)), but the list says \(ExpectedChecksum.hex(checksum.digest))")
            }
        }
    }

    /// The download's operation, made by `manager` with `run`'s settings: its body goes to the partial file, its record
    /// beside it from the first byte, and `ended` is called once when it has ended and its file has been checked and
    /// placed (or kept to be continued).
    /// - Parameters:
    ///   - progress: Where bytes are counted and start times kept.
    ///   - isStopping: Whether a stop was asked for (a cancellation is then "stopped", not a failure).
    func makeOperation(
        run: BatchRun, manager: HTTPRequestOperationManager, progress: BatchProgress,
        isStopping: @escaping @Sendable () -> Bool, ended: @escaping @Sendable (Ending) -> Void
    ) -> HTTPRequestOperation {
        var request = URLRequest(url: entry.url)
        request.timeoutInterval = run.timeout
        // The list's own fields for this file go over the command's.
        let headerFields = parts.headerFields.merging(entry.headers) { _, listed in listed }
        for (name, value) in headerFields { request.setValue(value, forHTTPHeaderField: name) }
        let archive = resumeFile.load(url: entry.url, headerFields: headerFields, timeout: run.timeout)
        var resumed: HTTPRequestOperation?
        if let archive {
            do {
                resumed = try manager.httpRequestOperation(resuming: archive, success: nil, failure: nil)
                let kept = (try? IntegrityCheck.size(of: resumeFile.partial)) ?? 0
                progress.display.printLine("courier: continuing \(entry.output.path) after its \(kept) bytes")
            } catch {
                // The kept bytes cannot be vouched for without their archive: the download starts again.
                progress.display.printLine("courier: cannot continue \(entry.output.path) (\(error)); downloading it again")
            }
        }
        let operation = resumed ?? manager.httpRequestOperation(with: request, success: nil, failure: nil)
        // The operation's own completion block, on the batch's completion queue, rather than success and failure
        // blocks: those hop to a global queue to serialize the response and back to the completion queue, two thread
        // wake-ups per file for a body that is a file and needs no serializing. `error` is the same either way (the
        // serializer's verdict on the status, else the transfer's).
        let resumedEarlierBytes = archive != nil
        operation.completionBlock = { [self] in
            ended(finish(operation, error: operation.error, resumedEarlierBytes: resumedEarlierBytes, run: run, progress: progress, isStopping: isStopping))
        }
        operation.outputFileURL = resumeFile.partial
        operation.transport = run.transport
        if !parts.sessionHeaders.isEmpty {
            let confinement = parts.sessionHeaders
            operation.setRedirectResponseBlock { proposed, redirect in redirect == nil ? proposed : confinement.confined(proposed) }
        }
        if let cookieJar = run.cookieJar { operation.cookieJar = cookieJar }
        operation.cache = run.cache
        operation.interceptors = run.retryInterceptors
        if !run.retryInterceptors.isEmpty {
            let url = entry.url, limit = run.retryLimit, display = progress.display
            operation.setWillRetryBlock { event in
                display.printLine(CommonRequestOptions.retryLine(event, limit: limit) + " (\(url.absoluteString))")
            }
        }
        if let credential = parts.credential {
            let url = entry.url
            operation.setWillSendRequestForAuthenticationChallengeBlock { challenge in
                credential.answer(challenge, originalURL: url)
            }
        }
        // The first bytes of a body: its record goes beside the partial file, so that a killed batch continues. Not
        // when they are the whole body (a small file, finished and placed next): the record would be removed at once.
        let recorded = Atomic<Bool>(false)
        let resumeFile = resumeFile
        operation.setDownloadProgressBlock { [weak operation] read, total, expected in
            if let operation, !recorded.exchange(true, ordering: .relaxed), expected < 0 || Int64(total) < Int64(expected) {
                resumeFile.record(operation)
            }
            progress.add(Int64(read))
        }
        return operation
    }

    /// Checks and places the file of an operation that ended, or keeps its bytes to be continued; the ending.
    private func finish(
        _ operation: HTTPRequestOperation, error: (any Error)?, resumedEarlierBytes: Bool, run: BatchRun,
        progress: BatchProgress, isStopping: @Sendable () -> Bool
    ) -> Ending {
        let seconds = progress.seconds(since: operation)
        let status = operation.response?.statusCode
        var failure: String?
        var failureError = error
        var kept = false
        var saved = entry.output
        var note: String?
        /// The placed file's size, when its record found it.
        var placedSize: Int64?
        if run.verbose, let metrics = operation.metrics {
            progress.display.printLine(VerboseTrace(metrics: metrics).lines.joined(separator: "\n"))
        }
        if let error {
            if let status, status >= 400 {
                failure = "HTTP \(status)"
            } else if expired.load(ordering: .relaxed), (error as? URLError)?.code == .cancelled {
                failure = "took longer than --max-time \(run.maxTime.map { String(format: "%g", $0) } ?? "") s"
            } else if isStopping(), (error as? URLError)?.code == .cancelled {
                failure = "stopped"
            } else {
                failure = TransferFailureMessage.describe(error)
                // Cut off midway: kept for the next run, as a stopped download is.
                if let kept = resumeFile.store(operation, pausing: false) { keptByStop.withLock { $0 = kept } }
            }
            if let keptBytes = keptByStop.withLock({ $0 }) {
                failure = (failure ?? "") + "; \(keptBytes) bytes kept, run the batch again to continue"
                kept = true
            } else if resumedEarlierBytes {
                // An earlier run's bytes that this one could not add to: never removed.
                failure = (failure ?? "") + "; the earlier run's bytes are kept, run the batch again to continue"
                kept = true
            } else {
                try? FileManager.default.removeItem(at: resumeFile.partial)
                resumeFile.remove()
            }
        } else if let response = operation.response {
            resumeFile.remove()
            // The same checks as `courier download`: size, Repr-Digest, Content-Digest, Content-MD5; the file takes
            // its final name only once they pass.
            do {
                _ = try IntegrityCheck(response: response).verify(resumeFile.partial)
                try verifyListed(resumeFile.partial)
                let placed = try BatchRun.placeVerified(resumeFile.partial, at: entry.output, replacing: run.replacesFiles)
                saved = placed
                if placed != entry.output { note = "\(entry.output.lastPathComponent) exists and was kept" }
                do {
                    placedSize = try run.finishedFiles.record(entry.listedURL ?? entry.url, output: entry.output, saved: placed)
                } catch {
                    note = [note, "not recorded as finished: \(error)"].compactMap { $0 }.joined(separator: "; ")
                }
            } catch let mismatch as IntegrityCheck.Mismatch {
                failure = "failed verification: \(mismatch.message) (kept as \(resumeFile.partial.lastPathComponent))"
                failureError = mismatch
                kept = true
            } catch {
                failure = TransferFailureMessage.describe(error)
                failureError = error
                kept = true
            }
        }
        if failure != nil { saved = resumeFile.partial }
        let size = failure == nil || kept ? (placedSize ?? (try? IntegrityCheck.size(of: saved)) ?? 0) : 0
        var result = BatchResult(url: entry.url, status: status, bytes: size, seconds: seconds,
                                 output: failure == nil || kept ? saved : nil, failure: failure)
        result.note = note
        return Ending(result: result, response: operation.response, failure: failure == nil ? nil : failureError)
    }
}

/// What a batch's downloads share on the terminal: the progress line (files done, bytes received) and the start time
/// of each operation (an operation queue starts them later than they are made).
final class BatchProgress: Sendable {
    let display = ProgressDisplay()
    private let bytes = Atomic<Int64>(0)
    private let done = Atomic<Int>(0)
    /// Whether a redraw for ``report(_:)`` is queued on the main queue and has not started.
    private let redrawQueued = Atomic<Bool>(false)
    /// The files of the batch, or `nil` when unknown (a worker of a shared queue).
    private let total: Int?
    private let starts = Mutex<[ObjectIdentifier: ContinuousClock.Instant]>([:])
    /// Where the result lines go: standard output, or standard error when standard output holds a report.
    private let resultLines: @Sendable (String) -> Void

    init(total: Int?, resultsToStandardError: Bool = false) {
        self.total = total
        resultLines = resultsToStandardError ? ProgressDisplay.standardError : ProgressDisplay.standardOutput
    }

    /// "3/10 files", or "3 files" when the total is unknown.
    var prefix: String {
        let count = done.load(ordering: .relaxed)
        return total.map { "\(count)/\($0) files" } ?? "\(count) files"
    }

    /// Counts `read` more bytes and redraws the line.
    func add(_ read: Int64) {
        let now = bytes.add(read, ordering: .relaxed).newValue
        display.update(completed: now, total: nil, prefix: prefix)
    }

    /// Redraws the line.
    func redraw() {
        display.update(completed: bytes.load(ordering: .relaxed), total: nil, prefix: prefix)
    }

    /// Counts a download that ended, prints its line and redraws the progress line with the new count (on the main
    /// queue, where the operations' progress blocks redraw it too). One redraw is queued at a time: it reads the count
    /// when it runs, so files that end meanwhile need no wake-up of the main thread of their own.
    func report(_ result: BatchResult) {
        done.add(1, ordering: .relaxed)
        display.printLine(BatchReport.resultLine(result), to: resultLines)
        guard !redrawQueued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        DispatchQueue.main.async { [self] in
            redrawQueued.store(false, ordering: .releasing)
            redraw()
        }
    }

    /// Keeps each operation's start time, from the operations' start notifications, until the returned observer is
    /// removed.
    func observeStarts() -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .courierOperationDidStart, object: nil, queue: nil) { [self] note in
            guard let operation = note.object as? URLConnectionOperation else { return }
            starts.withLock { $0[ObjectIdentifier(operation)] = .now }
        }
    }

    /// Seconds since `operation` started (0 when its start was not seen).
    func seconds(since operation: HTTPRequestOperation) -> Double {
        starts.withLock { $0.removeValue(forKey: ObjectIdentifier(operation)) }.map { (ContinuousClock.now - $0).seconds } ?? 0
    }
}
