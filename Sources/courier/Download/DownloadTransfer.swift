import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One run of a `DownloadTask` on a `URLSessionManager`, from a request or from resume data, with
/// progress shown and SIGINT/SIGTERM turned into cancellation with resume data.
struct DownloadTransfer {
    /// How the run ended.
    enum Outcome {
        /// The body is in `savedAt` (2xx, or a 416 for a resumed download that was already complete) — still to be
        /// verified.
        case finished(HTTPURLResponse, savedAt: URL)
        /// The server answered with an error status; the error body was discarded.
        case httpError(HTTPURLResponse)
        /// A stop signal or `--max-time` cancelled the task; `keptBytes` is `nil` when nothing could be kept.
        case stopped(StopReason, keptBytes: Int64?)
        /// The transfer failed midway; its partial file and resume data were kept (`keptBytes`).
        case broken(any Error, keptBytes: Int64)
        /// The transfer failed.
        case failed(any Error)
    }

    /// What stopped a download before its end.
    enum StopReason: Equatable {
        /// SIGINT or SIGTERM.
        case signal(Int32)
        /// `--max-time` ran out.
        case deadline
    }

    let files: DownloadFiles
    /// Without `-o`: the name chosen from the response; `nil` saves to `files.output`.
    var serverNamed: ServerNamedTarget?
    /// `--max-time`: seconds the whole download may take before it is stopped as Ctrl-C stops it; `nil` for no limit.
    var maxTime: TimeInterval?
    /// `--retry`: how many times a request that failed before its body (or got 408, 429, 5xx) is sent again.
    var retry = 0
    let timeout: TimeInterval
    /// The transport of the command's TLS, proxy and HTTP-version options; shut down by the caller.
    var transport: (any HTTPTransport)?
    /// `-u`, for challenges from the download's own origin.
    var credential: ChallengeCredential?
    /// `--session`'s cookie jar; `nil` for a jar of this run only.
    var cookieJar: CookieJar?
    /// `--session`'s header fields the request carries, kept back from a redirect to another origin. `nil` for none.
    var sessionHeaders: SessionHeaderConfinement?
    /// `--cache`'s HTTP cache: a fresh stored response is saved without a request, a stale one revalidated. `nil`
    /// for none.
    var cache: HTTPCache?
    /// `-v`: the requests and responses of the download, as the request commands show them, on standard error.
    var verbose = false
    /// `--follow` (default) or `--no-follow`.
    var followsRedirects = true
    /// `--max-redirects` (default 16).
    var maximumRedirects = 16

    /// Runs the download: `resume` continues an interrupted one, otherwise `request` starts afresh.
    /// The session configuration of the download's options (transport, idle timeout, cookies, cache, redirects,
    /// retries), for this run and for ``SplitDownload``'s.
    var sessionConfiguration: SessionConfiguration {
        var configuration = SessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.transport = transport
        if let cookieJar { configuration.httpCookieStorage = cookieJar }
        configuration.urlCache = cache
        configuration.requestSettings.followsRedirects = followsRedirects
        configuration.requestSettings.maximumRedirects = maximumRedirects
        if retry > 0 { configuration.interceptors = [RetryPolicy(retryLimit: retry, budget: nil)] }
        return configuration
    }

    func run(request: URLRequest, resume: DownloadResumeData?) async throws -> Outcome {
        let manager = URLSessionManager(configuration: sessionConfiguration)
        manager.completionQueue = DispatchQueue(label: "courier.download.completion")
        if let credential {
            manager.setTaskDidReceiveAuthenticationChallengeBlock { _, task, challenge in
                credential.answer(challenge, originalURL: task.originalRequest?.url)
            }
        }
        defer { manager.invalidateSessionCancelingTasks(true) }
        if let sessionHeaders, !sessionHeaders.isEmpty {
            manager.setTaskWillPerformHTTPRedirectionBlock { _, _, _, proposed in sessionHeaders.confined(proposed) }
        }

        let display = ProgressDisplay(baseline: resume?.resumption.offset ?? 0)
        let limit = retry
        manager.setTaskWillRetryBlock { _, _, event in display.printLine(CommonRequestOptions.retryLine(event, limit: limit)) }
        manager.setDownloadTaskDidWriteDataBlock { _, _, _, written, expected in
            display.update(completed: written, total: expected < 0 ? nil : expected)
        }
        if verbose {
            manager.setTaskDidFinishCollectingMetricsBlock { _, _, metrics in
                display.printLine(VerboseTrace(metrics: metrics.exchangeMetrics).lines.joined(separator: "\n"))
            }
        }
        let files = self.files
        manager.setDownloadTaskDidResumeBlock { _, task, offset, _ in
            // The body starts: its record goes beside FILE.part before its bytes, so that a download killed from
            // here on (SIGKILL, a crash, the OOM killer) continues with --continue.
            files.record(task, offset: offset)
            display.rebase(offset)
            if offset == 0, resume != nil {
                display.printLine("courier: the server cannot resume this download; starting again from the beginning")
            }
        }

        let errorBody = FileManager.default.temporaryDirectory.appendingPathComponent("courier-error-\(UUID().uuidString)")
        let output = files.output
        let serverNamed = self.serverNamed
        let resuming = resume != nil
        let saved = Mutex<URL?>(nil)
        let destination: DownloadTask.Destination = { _, response in
            guard let status = (response as? HTTPURLResponse)?.statusCode, Self.isFile(status: status, resuming: resuming) else { return errorBody }
            guard let target = serverNamed?.file(for: response) else {
                // -o (or --continue): that file is the one asked for, replaced as curl -o replaces it.
                try? FileManager.default.removeItem(at: output)
                saved.withLock { $0 = output }
                return output
            }
            // A file that exists at the chosen name is one --force replaces.
            try? FileManager.default.removeItem(at: target)
            saved.withLock { $0 = target }
            return target
        }
        let stored = Mutex<Result<Int64, any Error>?>(nil)
        let target = Mutex<DownloadTask?>(nil)
        let cancel: @Sendable () -> Void = {
            target.withLock { $0 }?.cancel(byProducingResumeData: { data in
                guard let data else { return }
                stored.withLock { $0 = Result { try files.store(data) } }
            })
        }
        let signals = StopSignals { _ in cancel() }
        defer { signals.restore() }
        // The deadline stops the download as a signal does, so that its bytes are kept to be continued.
        let expired = Atomic<Bool>(false)
        let deadline = maxTime.map { seconds in
            Task { @Sendable in
                // NumericOption bounds --max-time to a year; bounded here too, so that no value can overflow Duration.
                try await Task.sleep(for: .seconds(NumericOption.timerSeconds(seconds)))
                expired.store(true, ordering: .relaxed)
                cancel()
            }
        }
        // Printed once Ctrl-C is handled, so that scripts (and tests) know from here on it keeps resume data.
        if let resume {
            display.printLine("continuing \(resume.url.absoluteString) after \(resume.resumption.offset) bytes into \(files.output.path)")
        } else {
            let into = serverNamed.map { "\($0.urlNamed.deletingLastPathComponent().path)/ (named by the response)" } ?? files.output.path
            display.printLine("downloading \(request.url?.absoluteString ?? "") into \(into)")
        }
        let (response, error): (URLResponse?, (any Error)?) = try await withCheckedThrowingContinuation { continuation in
            let completion: DownloadTask.CompletionHandler = { response, _, error in
                continuation.resume(returning: (response, error))
            }
            // A fresh download starts from resume data with nothing kept, so that its bytes go to FILE.part from the
            // first one (a task's own partial file lives in a temporary directory a killed process leaves behind).
            let start = resume ?? DownloadResumeData(request: request, partialFile: files.partial, resumption: DownloadResumption(offset: 0))
            let task: DownloadTask
            do {
                task = manager.downloadTask(withResumeData: try start.encoded(), destination: destination, completionHandler: completion)
            } catch {
                continuation.resume(throwing: error)
                return
            }
            target.withLock { $0 = task }
            task.resume()
            if signals.received != nil { cancel() }   // a signal that came before the task existed
        }
        deadline?.cancel()
        try? FileManager.default.removeItem(at: errorBody)

        // A signal (or the deadline) that came after the task had completed changes nothing.
        let stopReason = signals.received.map(StopReason.signal) ?? (expired.load(ordering: .relaxed) ? .deadline : nil)
        if let reason = stopReason, error != nil {
            display.abandon()
            switch stored.withLock({ $0 }) {
            case .success(let kept)? where kept > 0:
                return .stopped(reason, keptBytes: kept)
            case .success?:
                // A response but no byte of its body yet: nothing worth continuing.
                files.removeLeftovers()
                return .stopped(reason, keptBytes: nil)
            case .failure(let error)?:
                return .failed(error)
            case nil:
                return .stopped(reason, keptBytes: nil)
            }
        }
        if let error {
            display.abandon()
            if let data = DownloadTask.resumeData(from: error) {
                do {
                    return .broken(error, keptBytes: try files.store(data))
                } catch let unrecorded {
                    // The bytes' record could not be written either (a full disk refuses it too; the one written as
                    // the body started is best effort, and the body may have filled the disk first). The transfer's
                    // failure is the news; the bytes stay at FILE.part, but nothing vouches for them to continue.
                    let what = TransferFailureMessage.isDiskFull(error) ? "no space left on device" : TransferFailureMessage.describe(error)
                    return .failed(CLIFailure(
                        status: .network,
                        message: "\(what); the bytes received are at \(files.partial.path) but cannot be continued (\(unrecorded))"
                    ))
                }
            }
            return .failed(error)
        }
        guard let http = response as? HTTPURLResponse else {
            display.abandon()
            return .failed(URLError(.badServerResponse))
        }
        guard Self.isFile(status: http.statusCode, resuming: resuming) else {
            display.abandon()
            return .httpError(http)
        }
        display.finish()
        return .finished(http, savedAt: saved.withLock { $0 } ?? output)
    }

    /// Whether a final response with `status` produced the file: a 2xx, or when resuming a 416
    /// (the exchange answers that way only when the kept bytes were already the whole file).
    static func isFile(status: Int, resuming: Bool) -> Bool {
        (200..<300).contains(status) || (resuming && status == 416)
    }
}
