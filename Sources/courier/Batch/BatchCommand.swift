import ArgumentParser
import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier batch FILE [--concurrency N] [--output-dir DIR]`: many downloads on an operation queue.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Download every URL listed in a file, several at a time.",
        discussion: """
        FILE holds one URL per line, or URL<TAB>output; blank lines and lines starting with # are \
        ignored. The downloads run as HTTPRequestOperations on an OperationQueue (grouped with \
        batch(of:progress:completion:)), each body streamed to its file. Progress (files done and \
        bytes) goes to standard error; one result line per file as it finishes and a summary \
        table go to standard output. A download fails on a network error or an HTTP status >= 400 \
        (its output file is removed), or when the file does not match the size or the digests \
        (Repr-Digest, Content-Digest, Content-MD5) the server announced (the file is kept as OUTPUT.part). \
        A body is written to OUTPUT.part, with OUTPUT.courier-operation beside it from its first \
        bytes, and takes its final name only once it is whole and verified. \
        Ctrl-C (SIGINT) or SIGTERM stops the downloads still running or queued and prints the \
        summary. A download stopped, cut off by a network error or killed (SIGKILL, a crash) midway \
        keeps OUTPUT.part: running the same batch again continues it with Range/If-Range (and starts \
        it over when the server cannot resume), and skips the files an earlier run finished and verified \
        (recorded in OUTPUT-DIR/.courier-batch-done with their size and modification time) while they are unchanged. \
        An existing file is never overwritten unless --force is given: a download whose output name is taken (by \
        a file the batch did not make, or one changed since) is saved as NAME-1.EXT, NAME-2.EXT…, as download does. \
        Exit codes: 0 all downloaded, 2 usage error (a malformed line is named by its number), \
        6 at least one download failed, 130 stopped by SIGINT, 143 stopped by SIGTERM.
        """
    )

    @Argument(help: "The file listing the downloads.")
    var file: String

    @Option(name: .customLong("concurrency"), parsing: .unconditional, help: ArgumentHelp("How many downloads run at once (1 to 1000).", valueName: "n"))
    var concurrencyGiven: OptionNumber = 4

    @Option(name: .customLong("output-dir"), help: "The directory relative outputs go to (created when missing).")
    var outputDirectory: String = "."

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds without data before a download fails (0.001 to a year).", valueName: "seconds"))
    var timeoutGiven: OptionNumber = 30

    @Flag(help: "Replace existing files of the outputs' names (by default an existing file is never overwritten: the download is saved as NAME-1.EXT, NAME-2.EXT…).")
    var force = false

    @OptionGroup
    var redirects: RedirectOptions

    @OptionGroup
    var kept: SessionOptions

    @OptionGroup
    var common: CommonRequestOptions

    func run() async throws {
        let concurrency = try NumericOption.concurrency.count(concurrencyGiven)
        let timeout = try NumericOption.timeout.seconds(timeoutGiven)
        _ = try redirects.maxRedirects
        try common.check()
        try kept.check()
        let text: String
        do {
            text = try String(contentsOf: URL(fileURLWithPath: file), encoding: .utf8)
        } catch {
            throw CLIFailure.usage("cannot read \(file): \(error.localizedDescription)")
        }
        let directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL
        let batch: BatchFile
        do {
            batch = try BatchFile(parsing: text, directory: directory)
        } catch let malformed as BatchFile.Malformed {
            throw CLIFailure.usage("\(file): \(malformed.message)")
        }
        guard !batch.entries.isEmpty else { throw CLIFailure.usage("\(file) lists no URLs") }
        do {
            for parent in Set(batch.entries.map { $0.output.deletingLastPathComponent() }) {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            }
        } catch {
            throw CLIFailure.usage("cannot create the output directory: \(error.localizedDescription)")
        }

        // A named session is the one of the first URL's host.
        let sessionURL = batch.entries[0].url
        var session = try kept.open(for: sessionURL)
        if let session, let elsewhere = batch.entries.first(where: { !session.applies(to: $0.url) }) {
            session.warnIfWithheld(from: elsewhere.url)
        }
        let transport = AsyncHTTPClientTransport(configuration: try common.transportConfiguration(timeout: timeout))
        // The header fields and Authorization are worked out once for the session's origin and once for the others
        // (a bad -H fails here, a password is asked once).
        var parts: [Bool: BatchRun.RequestParts] = [:]
        let entryParts = try batch.entries.map { entry in
            let applies = session?.applies(to: entry.url) ?? false
            if let known = parts[applies] { return known }
            let made = try BatchRun.RequestParts(common: session?.lending(to: common, for: entry.url) ?? common,
                                                 sessionHeaders: session?.headers(for: entry.url) ?? [:], url: entry.url)
            parts[applies] = made
            return made
        }
        var run = BatchRun(
            entries: batch.entries, requestParts: entryParts, concurrency: concurrency, timeout: timeout,
            transport: transport, retryInterceptors: try common.retryInterceptors, retryLimit: try common.retry,
            finishedFiles: BatchFinishedFiles(directory: directory)
        )
        run.cookieJar = session?.jar
        run.cache = try kept.httpCache()
        run.followsRedirects = redirects.follow
        run.maximumRedirects = try redirects.maxRedirects
        run.replacesFiles = force
        let (results, signal) = await run.run()
        try? await transport.shutdown()
        try session?.save(given: common, for: sessionURL)
        try StandardStreams.write(BatchReport.table(results) + "\n")
        let failed = results.filter { !$0.succeeded }.count
        if let signal {
            throw CLIFailure(status: signal == SIGTERM ? .terminated : .interrupted,
                             message: "stopped; \(results.count - failed) of \(results.count) downloads had finished")
        }
        if failed > 0 {
            throw CLIFailure(status: .batchFailed, message: "\(failed) of \(results.count) downloads failed")
        }
    }
}

/// The downloads of one batch on an `HTTPRequestOperationManager`'s queue.
struct BatchRun {
    /// What one download's request carries besides its URL.
    struct RequestParts {
        /// The header fields (the session's, `-H`, and the Authorization of `--bearer` or `--auth-type basic|bearer`).
        let headerFields: [String: String]
        /// `-u` (or the session's): the operation answers challenges from its own request's origin with it.
        let credential: ChallengeCredential?
        /// The session's header fields among ``headerFields``, kept back from a redirect to another origin.
        let sessionHeaders: SessionHeaderConfinement

        /// The parts `common` and the session's `sessionHeaders` give a request to `url`.
        /// - Throws: ``CLIFailure`` (usage) for a malformed `-H` or `-u`.
        init(common: CommonRequestOptions, sessionHeaders: [String: String], url: URL) throws {
            var template = URLRequest(url: url)
            for (name, value) in sessionHeaders { template.setValue(value, forHTTPHeaderField: name) }
            try common.apply(to: &template)
            headerFields = template.allHTTPHeaderFields ?? [:]
            credential = try common.challengeCredential()
            self.sessionHeaders = SessionHeaderConfinement(lent: sessionHeaders, to: url, except: try common.header.map(HeaderOption.init(parsing:)))
        }
    }

    let entries: [BatchFile.Entry]
    /// The parts of each entry's request, in the same order.
    let requestParts: [RequestParts]
    let concurrency: Int
    let timeout: TimeInterval
    /// The transport of the command's TLS, proxy and HTTP-version options.
    let transport: any HTTPTransport
    /// `--retry`'s policy, or none.
    let retryInterceptors: [any RequestInterceptor]
    /// `--retry`'s value, for the line printed before each retry.
    let retryLimit: Int
    /// `--session`'s cookie jar; `nil` for the process's own (``CookieJar/processShared``).
    var cookieJar: CookieJar?
    /// The files earlier runs into the output directory finished, and where this run records its own.
    let finishedFiles: BatchFinishedFiles
    /// `--cache`'s HTTP cache; `nil` for none.
    var cache: HTTPCache?
    /// `--force`: a file of an output's name is replaced. Default `false`: it is kept, and the download saved beside it.
    var replacesFiles = false
    /// `--follow` (default) or `--no-follow`.
    var followsRedirects = true
    /// `--max-redirects` (default 16).
    var maximumRedirects = 16

    /// Gives the verified `partial` file its final name `output`, replacing what is there (rename(2): one step, so a
    /// reader sees the old file or the new one whole).
    /// - Throws: ``CLIFailure`` with the system's reason.
    static func moveIntoPlace(_ partial: URL, _ output: URL) throws {
        guard rename(partial.path, output.path) == 0 else {
            throw CLIFailure(status: .network, message: "cannot rename \(partial.path) to \(output.lastPathComponent): \(String(cString: strerror(errno)))")
        }
    }

    /// Gives the verified `partial` file the name `output`, or when that name is taken (and not `replacing` a file),
    /// the first free name beside it (``ServerNamedTarget/firstFreeName(beside:)``). A name is taken with link(2),
    /// which fails rather than replace anything, so a file that appears meanwhile (another batch, another program)
    /// is not overwritten either.
    /// - Returns: The file's name now.
    /// - Throws: ``CLIFailure`` with the system's reason.
    static func placeVerified(_ partial: URL, at output: URL, replacing: Bool) throws -> URL {
        var isDirectory: ObjCBool = false
        if replacing, !(FileManager.default.fileExists(atPath: output.path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            try moveIntoPlace(partial, output)
            return output
        }
        var target = output
        for _ in 0..<1000 {
            if link(partial.path, target.path) == 0 {
                unlink(partial.path)
                return target
            }
            if errno != EEXIST, !FileManager.default.fileExists(atPath: target.path) {
                // A file system without hard links: the name was free a moment ago.
                try moveIntoPlace(partial, target)
                return target
            }
            target = ServerNamedTarget.firstFreeName(beside: output)
        }
        throw CLIFailure(status: .network, message: "no free name for \(output.path) (kept as \(partial.lastPathComponent))")
    }

    /// Runs every download and returns the results in file order, and the stop signal (SIGINT or
    /// SIGTERM) that cancelled the rest, if one came.
    func run() async -> (results: [BatchResult], stoppedBy: Int32?) {
        let manager = HTTPRequestOperationManager()
        manager.responseSerializer = HTTPResponseSerializer()
        manager.completionQueue = DispatchQueue(label: "courier.batch.completion")
        manager.operationQueue.maxConcurrentOperationCount = concurrency
        manager.requestSettings.followsRedirects = followsRedirects
        manager.requestSettings.maximumRedirects = maximumRedirects

        let display = ProgressDisplay()
        let bytes = Atomic<Int64>(0)
        let finished = Atomic<Int>(0)
        let total = entries.count
        let results = Mutex<[Int: BatchResult]>([:])
        let starts = Mutex<[ObjectIdentifier: ContinuousClock.Instant]>([:])
        let prefix = { @Sendable in "\(finished.load(ordering: .relaxed))/\(total) files" }
        // Ctrl-C or SIGTERM stops every download still queued or running (not the batch's final operation, which
        // must run for the summary to follow); one that has received bytes is archived first, to be continued.
        let downloads = Mutex<[(index: Int, operation: HTTPRequestOperation)]>([])
        let resumable = Mutex<[Int: Int64]>([:])
        let cancelDownloads: @Sendable () -> Void = {
            for (index, operation) in downloads.withLock({ $0 }) {
                if operation.isExecuting, let kept = BatchResumeFile(output: entries[index].output).store(operation, pausing: true) {
                    resumable.withLock { $0[index] = kept }
                }
                operation.cancel()
            }
        }
        let signals = StopSignals { _ in cancelDownloads() }
        defer { signals.restore() }
        let startObserver = NotificationCenter.default.addObserver(forName: .courierOperationDidStart, object: nil, queue: nil) { note in
            guard let operation = note.object as? URLConnectionOperation else { return }
            starts.withLock { $0[ObjectIdentifier(operation)] = .now }
        }
        defer { NotificationCenter.default.removeObserver(startObserver) }

        let indexed = entries.enumerated().compactMap { index, entry -> (index: Int, operation: HTTPRequestOperation)? in
            let parts = requestParts[index]
            var request = URLRequest(url: entry.url)
            request.timeoutInterval = timeout
            for (name, value) in parts.headerFields { request.setValue(value, forHTTPHeaderField: name) }
            let resumeFile = BatchResumeFile(output: entry.output)
            if let saved = finishedFiles.finished(entry.url, output: entry.output) {
                // Finished and verified by an earlier run, and unchanged since.
                let result = BatchResult(url: entry.url, status: nil, bytes: (try? IntegrityCheck.size(of: saved)) ?? 0,
                                         seconds: 0, output: saved, failure: nil, alreadyComplete: true)
                let done = results.withLock { results in
                    results[index] = result
                    return results.count
                }
                finished.store(done, ordering: .relaxed)
                display.printLine(BatchReport.resultLine(result), to: ProgressDisplay.standardOutput)
                return nil
            }
            let archive = resumeFile.load(url: entry.url, headerFields: parts.headerFields, timeout: timeout)
            let record: @Sendable (HTTPRequestOperation, (any Error)?) -> Void = { operation, error in
                let seconds = starts.withLock { $0[ObjectIdentifier(operation)] }.map { (ContinuousClock.now - $0).seconds } ?? 0
                let status = operation.response?.statusCode
                var failure: String?
                var kept = false
                var saved = entry.output
                var note: String?
                if let error {
                    if let status, status >= 400 {
                        failure = "HTTP \(status)"
                    } else if signals.received != nil, (error as? URLError)?.code == .cancelled {
                        failure = "stopped"
                    } else {
                        failure = Self.describe(error)
                        // Cut off midway: kept for the next run, as a stopped download is.
                        if let kept = resumeFile.store(operation, pausing: false) { resumable.withLock { $0[index] = kept } }
                    }
                    if let keptBytes = resumable.withLock({ $0[index] }) {
                        failure = (failure ?? "") + "; \(keptBytes) bytes kept, run the batch again to continue"
                        kept = true
                    } else if archive != nil {
                        // An earlier run's bytes that this one could not add to: never removed.
                        failure = (failure ?? "") + "; the earlier run's bytes are kept, run the batch again to continue"
                        kept = true
                    } else {
                        try? FileManager.default.removeItem(at: resumeFile.partial)
                        resumeFile.remove()
                    }
                } else if let response = operation.response {
                    resumeFile.remove()
                    // The same checks as `courier download`: size, Repr-Digest, Content-Digest, Content-MD5; the
                    // file takes its final name only once they pass.
                    do {
                        _ = try IntegrityCheck(response: response).verify(resumeFile.partial)
                        let placed = try Self.placeVerified(resumeFile.partial, at: entry.output, replacing: replacesFiles)
                        saved = placed
                        if placed != entry.output { note = "\(entry.output.lastPathComponent) exists and was kept" }
                        do {
                            try finishedFiles.record(entry.url, output: entry.output, saved: placed)
                        } catch {
                            note = [note, "not recorded as finished: \(error)"].compactMap { $0 }.joined(separator: "; ")
                        }
                    } catch let mismatch as IntegrityCheck.Mismatch {
                        failure = "failed verification: \(mismatch.message) (kept as \(resumeFile.partial.lastPathComponent))"
                        kept = true
                    } catch {
                        failure = Self.describe(error)
                        kept = true
                    }
                }
                if failure != nil { saved = resumeFile.partial }
                let size = failure == nil || kept ? ((try? IntegrityCheck.size(of: saved)) ?? 0) : 0
                var result = BatchResult(url: entry.url, status: status, bytes: size, seconds: seconds,
                                         output: failure == nil || kept ? saved : nil, failure: failure)
                result.note = note
                let done = results.withLock { results in
                    results[index] = result
                    return results.count
                }
                finished.store(done, ordering: .relaxed)
                display.printLine(BatchReport.resultLine(result), to: ProgressDisplay.standardOutput)
            }
            let success: @Sendable (HTTPRequestOperation, Any?) -> Void = { operation, _ in record(operation, nil) }
            let failed: @Sendable (HTTPRequestOperation, any Error) -> Void = { operation, error in record(operation, error) }
            var resumed: HTTPRequestOperation?
            if let archive {
                do {
                    resumed = try manager.httpRequestOperation(resuming: archive, success: success, failure: failed)
                    let kept = (try? IntegrityCheck.size(of: resumeFile.partial)) ?? 0
                    display.printLine("courier: continuing \(entry.output.path) after its \(kept) bytes")
                } catch {
                    // The kept bytes cannot be vouched for without their archive: the download starts again.
                    display.printLine("courier: cannot continue \(entry.output.path) (\(error)); downloading it again")
                }
            }
            let operation = resumed ?? manager.httpRequestOperation(with: request, success: success, failure: failed)
            operation.outputFileURL = resumeFile.partial
            operation.transport = transport
            if !parts.sessionHeaders.isEmpty {
                let confinement = parts.sessionHeaders
                operation.setRedirectResponseBlock { proposed, redirect in redirect == nil ? proposed : confinement.confined(proposed) }
            }
            if let cookieJar { operation.cookieJar = cookieJar }
            operation.cache = cache
            operation.interceptors = retryInterceptors
            if !retryInterceptors.isEmpty {
                let url = entry.url, limit = retryLimit
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
            // The first bytes of a body: its record goes beside the partial file, so that a killed batch continues.
            let recorded = Atomic<Bool>(false)
            operation.setDownloadProgressBlock { [weak operation] read, _, _ in
                if let operation, !recorded.exchange(true, ordering: .relaxed) { resumeFile.record(operation) }
                let now = bytes.add(Int64(read), ordering: .relaxed).newValue
                display.update(completed: now, total: nil, prefix: prefix())
            }
            return (index, operation)
        }
        let operations = indexed.map(\.operation)

        downloads.withLock { $0 = indexed }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let all = URLConnectionOperation.batch(of: operations, progress: { _, _ in
                display.update(completed: bytes.load(ordering: .relaxed), total: nil, prefix: prefix())
            }, completion: { _ in
                continuation.resume()
            })
            manager.operationQueue.addOperations(all, waitUntilFinished: false)
            if signals.received != nil { cancelDownloads() }   // a signal that came before the operations existed
        }
        if signals.received != nil { display.abandon() } else { display.finish(prefix: prefix()) }
        let ordered = results.withLock { results in
            entries.indices.map { results[$0] ?? BatchResult(url: entries[$0].url, status: nil, bytes: 0, seconds: 0, output: nil, failure: "did not run") }
        }
        return (ordered, signals.received)
    }

    private static func describe(_ error: any Error) -> String {
        TransferFailureMessage.describe(error)
    }
}
