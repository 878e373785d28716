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
        ignored. A line starting with { is a JSON Lines manifest entry: {"url": URL, "output": NAME, "size": N, \
        "sha256" or "sha512": HEX, "mirrors": [URL, URL], "headers": {"Name": "value"}}; the file must then have that \
        size and digest (as with --checksums FILE, a SHA256SUMS file), and when a download fails (an error, \
        HTTP >= 400, or a file that fails verification) the next mirror is tried. A file already at its output with \
        the listed digest counts as done. --report json prints a JSON report of every file in place of the table. The downloads run as HTTPRequestOperations on an OperationQueue, each \
        queued as soon as its line is read, each body streamed to its file. Progress (files done and \
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
        With --queue STORE (an SQLite file, or a postgres:// URL shared by machines), the downloads are jobs of a \
        durable queue (see `courier queue`): FILE's lines are added once (a run after a crash adds nothing again, \
        and puts the files that failed back), then this process downloads them with the others draining the same \
        store: `courier batch --queue STORE --worker` on any machine takes jobs without a FILE, each file fetched \
        by one worker at a time, into its own --output-dir. Outputs must then be inside --output-dir; requests \
        carry each worker's own -H and -u (nothing secret is stored); --retry retries a file through the queue \
        with backoff; a worker killed midway leaves its files to the others once its lease (--lease) runs out, \
        and continues its own part files when it runs again. \
        Exit codes: 0 all downloaded, 2 usage error (a malformed line is named by its number), \
        6 at least one download failed, 130 stopped by SIGINT, 143 stopped by SIGTERM.
        """
    )

    @Argument(help: "The file listing the downloads (not with --worker).")
    var file: String?

    @Option(name: .customLong("queue"), help: ArgumentHelp("Run the downloads as jobs of this durable queue: an SQLite file, or a postgres:// URL that workers on other machines drain too.", valueName: "store"))
    var queue: String?

    @Flag(help: "With --queue: download jobs others added, reading no FILE, until the queue is drained.")
    var worker = false

    @Option(name: .customLong("lease"), parsing: .unconditional, help: ArgumentHelp("With --queue: seconds a file stays with this process unless renewed, after which a worker killed midway gives it up (default 30).", valueName: "seconds"))
    var lease: OptionNumber = 30

    @Option(name: .customLong("concurrency"), parsing: .unconditional, help: ArgumentHelp("How many downloads run at once (1 to 1000).", valueName: "n"))
    var concurrencyGiven: OptionNumber = 4

    @Option(name: .customLong("output-dir"), help: "The directory relative outputs go to (created when missing).")
    var outputDirectory: String = "."

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds without data before a download fails (0.001 to a year).", valueName: "seconds"))
    var timeoutGiven: OptionNumber = 30

    @Option(name: .customLong("checksums"), help: ArgumentHelp("A file of digests as sha256sum or sha512sum write them (SHA256SUMS: 'HEX  NAME' per line): each download whose output (relative to --output-dir, or its file name) is listed must have that digest, as a manifest's sha256 does.", valueName: "file"))
    var checksumsFile: String?

    @Option(name: .customLong("report"), help: ArgumentHelp("json: write a machine-readable report of every file to standard output in place of the table (url, file, bytes, sha256, attempts, seconds, status, error); the result lines go to standard error.", valueName: "format"))
    var report: String?

    @Option(name: .customLong("max-time"), parsing: .unconditional, help: ArgumentHelp("Seconds each download may take from its start before it is stopped, its bytes kept for the next run (curl's --max-time, per transfer; 0.001 to a year). Default: no limit.", valueName: "seconds"))
    var maxTimeGiven: OptionNumber?

    @Flag(name: .shortAndLong, help: "Show each download's requests and response heads on stderr (the redirects and challenges between them, and timings) when it ends, as download's -v does.")
    var verbose = false

    @Flag(help: "Replace existing files of the outputs' names (by default an existing file is never overwritten: the download is saved as NAME-1.EXT, NAME-2.EXT…).")
    var force = false

    @OptionGroup
    var redirects: RedirectOptions

    @OptionGroup
    var kept: SessionOptions

    @OptionGroup
    var common: CommonRequestOptions

    // Beside `common`, not inside it: see ``RequestCommandGroups``.
    @OptionGroup(title: "TLS")
    var tls: TLSOptions

    @OptionGroup(title: "Network")
    var network: NetworkOptions

    func run() async throws {
        let concurrency = try NumericOption.concurrency.count(concurrencyGiven)
        let timeout = try NumericOption.timeout.seconds(timeoutGiven)
        _ = try redirects.maxRedirects
        try common.check(tls: tls, network: network)
        try kept.check()
        let directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL
        if let queue {
            try await runOnQueue(queue, concurrency: concurrency, timeout: timeout, directory: directory)
            return
        }
        guard !worker else { throw CLIFailure.usage("--worker drains a queue: give --queue STORE") }
        guard let file else { throw CLIFailure.usage("give the FILE listing the downloads") }
        guard report == nil || report == "json" else { throw CLIFailure.usage("--report takes json, not \(report ?? "")") }
        var batch = try readBatch(file, directory: directory)
        if let checksumsFile {
            let text: String
            do {
                text = try String(contentsOf: URL(fileURLWithPath: checksumsFile), encoding: .utf8)
            } catch {
                throw CLIFailure.usage("cannot read \(checksumsFile): \(error.localizedDescription)")
            }
            batch = batch.verified(by: try ChecksumsFile(parsing: text, named: checksumsFile), directory: directory)
        }

        // A named session is the one of the first URL's host.
        let sessionURL = batch.entries[0].url
        var session = try kept.open(for: sessionURL)
        if let session, let elsewhere = batch.entries.first(where: { !session.applies(to: $0.url) }) {
            session.warnIfWithheld(from: elsewhere.url)
        }
        let transport = try makeTransport(timeout: timeout)
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
        var run = try makeRun(entries: batch.entries, requestParts: entryParts, concurrency: concurrency, timeout: timeout,
                              transport: transport, retryInterceptors: try common.retryInterceptors, directory: directory)
        run.cookieJar = session?.jar
        run.reportsJSON = report == "json"
        let (results, signal) = await run.run()
        try? await transport.shutdown()
        try session?.save(given: common, for: sessionURL)
        try Self.finish(results, stoppedBy: signal, json: report == "json")
    }

    /// Prints the summary table of `results`, and fails for a stop signal or a failed download.
    static func finish(_ results: [BatchResult], stoppedBy signal: Int32?, json: Bool = false) throws {
        try StandardStreams.write(json ? BatchReport.json(results) : BatchReport.table(results) + "\n")
        let failed = results.filter { !$0.succeeded }.count
        if let signal {
            throw CLIFailure(status: signal == SIGTERM ? .terminated : .interrupted,
                             message: "stopped; \(results.count - failed) of \(results.count) downloads had finished")
        }
        if failed > 0 {
            throw CLIFailure(status: .batchFailed, message: "\(failed) of \(results.count) downloads failed")
        }
    }

    /// FILE's downloads, their outputs' folders made.
    /// - Throws: ``CLIFailure`` (usage) for a file that cannot be read, a malformed line, no URL, or a folder that
    ///   cannot be made.
    func readBatch(_ file: String, directory: URL) throws -> BatchFile {
        let text: String
        do {
            text = try String(contentsOf: URL(fileURLWithPath: file), encoding: .utf8)
        } catch {
            throw CLIFailure.usage("cannot read \(file): \(error.localizedDescription)")
        }
        let batch: BatchFile
        do {
            batch = try BatchFile(parsing: text, directory: directory)
        } catch let malformed as BatchFile.Malformed {
            throw CLIFailure.usage("\(file): \(malformed.message)")
        }
        guard !batch.entries.isEmpty else { throw CLIFailure.usage("\(file) lists no URLs") }
        do {
            // By path (`deletingLastPathComponent` parses a URL again for each of thousands of entries).
            for parent in Set(batch.entries.map { ($0.output.path as NSString).deletingLastPathComponent }) {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
        } catch {
            throw CLIFailure.usage("cannot create the output directory: \(error.localizedDescription)")
        }
        return batch
    }

    /// The transport of the command's TLS, proxy and HTTP-version options.
    func makeTransport(timeout: TimeInterval) throws -> EngineTransport {
        EngineTransport(configuration: try common.transportConfiguration(tls: tls, network: network, timeout: timeout))
    }

    /// The run's settings from the command's options.
    func makeRun(
        entries: [BatchFile.Entry], requestParts: [BatchRun.RequestParts], concurrency: Int, timeout: TimeInterval,
        transport: any HTTPTransport, retryInterceptors: [any RequestInterceptor], directory: URL
    ) throws -> BatchRun {
        var run = BatchRun(
            entries: entries, requestParts: requestParts, concurrency: concurrency, timeout: timeout,
            transport: transport, retryInterceptors: retryInterceptors, retryLimit: try common.retry,
            finishedFiles: BatchFinishedFiles(directory: directory)
        )
        run.cache = try kept.httpCache()
        run.followsRedirects = redirects.follow
        run.maximumRedirects = try redirects.maxRedirects
        run.replacesFiles = force
        run.maxTime = try maxTimeGiven.map(NumericOption.maxTime.seconds)
        run.verbose = verbose
        return run
    }
}

/// The downloads of one batch on an `HTTPRequestOperationManager`'s queue.
/// When a batch's run is over: every listed download has its result (from its own operation, or from the last mirror
/// tried after it failed), and no more are being added. Counts what is still to come (the adding counts as one, until
/// ``allAdded()``) and resumes the waiter at zero.
final class BatchWaiting: Sendable {
    private struct State {
        var running = 1
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// Every download to wait for has been added (``started()``).
    func allAdded() {
        ended()
    }

    /// The run waits through `continuation` until nothing runs.
    func resume(_ continuation: CheckedContinuation<Void, Never>) {
        let done = state.withLock { state -> Bool in
            guard state.running > 0 else { return true }
            state.waiter = continuation
            return false
        }
        if done { continuation.resume() }
    }

    /// A listed download starts (its mirrors, tried in turn, count as the same one).
    func started() {
        state.withLock { $0.running += 1 }
    }

    /// A listed download has its result.
    func ended() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.running -= 1
            guard state.running == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

struct BatchRun {
    /// What one download's request carries besides its URL.
    struct RequestParts: Sendable {
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
            template.setValue(CourierCommand.userAgent, forHTTPHeaderField: "User-Agent")
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
    /// `--report json`: standard output holds the report only, so the result lines go to standard error.
    var reportsJSON = false
    /// `--max-time`: seconds each download may take from its start; `nil` for no limit.
    var maxTime: TimeInterval?
    /// `-v`: each download's hops and timings on standard error when it ends.
    var verbose = false

    /// Gives the verified `partial` file its final name `output`, replacing what is there (rename(2): one step, so a
    /// reader sees the old file or the new one whole).
    /// - Throws: ``CLIFailure`` with the system's reason.
    static func moveIntoPlace(_ partial: URL, _ output: URL) throws {
        guard rename(partial.path, output.path) == 0 else {
            throw CLIFailure(status: .network, message: "cannot rename \(partial.path) to \(output.lastPathComponent): \(String(cString: strerror(errno)))")
        }
    }

    /// Gives the verified `partial` file the name `output`, or when that name is taken (and not `replacing` a file),
    /// the first free name beside it (``ServerNamedTarget/firstFreeName(beside:)``). A name is taken with a rename
    /// that fails rather than replace anything (``ExclusiveRename``, or link(2) where there is none), so a file that
    /// appears meanwhile (another batch, another program) is not overwritten either.
    ///
    /// Done on Courier's `DirectoryOperationQueue`, where the downloads' files are made: renames and creations in one
    /// directory wait for each other there rather than spin on the directory's lock in the kernel. Called on the
    /// batch's completion queue, which it blocks meanwhile.
    /// - Returns: The file's name now.
    /// - Throws: ``CLIFailure`` with the system's reason.
    static func placeVerified(_ partial: URL, at output: URL, replacing: Bool) throws -> URL {
        try DirectoryOperationQueue.runBlocking { try placeVerifiedHere(partial, at: output, replacing: replacing) }
    }

    private static func placeVerifiedHere(_ partial: URL, at output: URL, replacing: Bool) throws -> URL {
        var isDirectory: ObjCBool = false
        if replacing, !(FileManager.default.fileExists(atPath: output.path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            try moveIntoPlace(partial, output)
            return output
        }
        var target = output
        for _ in 0..<1000 {
            switch ExclusiveRename.rename(partial.path, to: target.path) {
            case .renamed:
                return target
            case .taken:
                target = ServerNamedTarget.firstFreeName(beside: output)
                continue
            case .notDone:
                break
            }
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

    /// The manager the downloads' operations are made by: `concurrency` at once, results on a queue of their own.
    func makeManager() -> HTTPRequestOperationManager {
        let manager = HTTPRequestOperationManager()
        manager.responseSerializer = HTTPResponseSerializer()
        manager.completionQueue = DispatchQueue(label: "courier.batch.completion")
        manager.operationQueue.maxConcurrentOperationCount = concurrency
        manager.requestSettings.followsRedirects = followsRedirects
        manager.requestSettings.maximumRedirects = maximumRedirects
        return manager
    }

    /// Runs every download and returns the results in file order, and the stop signal (SIGINT or
    /// SIGTERM) that cancelled the rest, if one came.
    func run() async -> (results: [BatchResult], stoppedBy: Int32?) {
        let manager = makeManager()
        let progress = BatchProgress(total: entries.count, resultsToStandardError: reportsJSON)
        let results = Mutex<[Int: BatchResult]>([:])
        // Ctrl-C or SIGTERM stops every download still queued or running (not the batch's final operation, which
        // must run for the summary to follow); one that has received bytes is archived first, to be continued.
        let downloads = Mutex<[(download: BatchDownload, operation: HTTPRequestOperation)]>([])
        let cancelDownloads: @Sendable () -> Void = {
            for (download, operation) in downloads.withLock({ $0 }) { download.stop(operation) }
        }
        let signals = StopSignals { _ in cancelDownloads() }
        defer { signals.restore() }
        let startObserver = progress.observeStarts()
        defer { NotificationCenter.default.removeObserver(startObserver) }
        // --max-time counts from each download's start (an operation queue starts them later than they are made).
        let expiryObserver = maxTime.map { seconds in
            NotificationCenter.default.addObserver(forName: .courierOperationDidStart, object: nil, queue: nil) { note in
                guard let operation = note.object as? HTTPRequestOperation,
                      let download = downloads.withLock({ $0.first { $0.operation === operation }?.download }) else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + NumericOption.timerSeconds(seconds)) { [weak operation] in
                    guard let operation, operation.isExecuting else { return }
                    download.expire(operation)
                }
            }
        }
        defer { if let expiryObserver { NotificationCenter.default.removeObserver(expiryObserver) } }

        let waiting = BatchWaiting()
        let run = self
        // How a download ended: its result, or (when it failed and the list gives a mirror) the next mirror's download.
        @Sendable func ended(_ ending: BatchDownload.Ending, of download: BatchDownload, index: Int, attempt: Int) {
            if ending.failure != nil, signals.received == nil, let next = download.entry.nextMirror() {
                // The failed file is not kept (the next mirror's download replaces it): its check's words alone.
                let reason = (ending.failure as? IntegrityCheck.Mismatch).map { "failed verification: \($0.message)" } ?? ending.result.failure ?? ""
                progress.display.printLine("courier: \(download.entry.url.absoluteString) failed (\(reason)); trying \(next.url.absoluteString)")
                // The failed mirror's bytes are not continued from another server.
                try? FileManager.default.removeItem(at: download.resumeFile.partial)
                download.resumeFile.remove()
                let mirror = BatchDownload(entry: next, parts: download.parts)
                let operation = mirror.makeOperation(run: run, manager: manager, progress: progress, isStopping: { signals.received != nil }) { ending in
                    ended(ending, of: mirror, index: index, attempt: attempt + 1)
                }
                downloads.withLock { $0.append((mirror, operation)) }
                manager.operationQueue.addOperation(operation)
                return
            }
            var result = ending.result
            result.attempts = attempt
            results.withLock { $0[index] = result }
            progress.report(result)
            waiting.ended()
        }
        for (index, entry) in entries.enumerated() {
            let download = BatchDownload(entry: entry, parts: requestParts[index])
            if let earlier = download.finishedEarlier(in: finishedFiles) {
                // Finished and verified by an earlier run, and unchanged since.
                results.withLock { $0[index] = earlier }
                progress.report(earlier)
                continue
            }
            let operation = download.makeOperation(run: self, manager: manager, progress: progress, isStopping: { signals.received != nil }) { ending in
                ended(ending, of: download, index: index, attempt: 1)
            }
            // Queued as soon as it is made: the first downloads run while the rest are made (a list of 1,000 small
            // files took about 15 ms to turn into operations, a twentieth of the whole run).
            downloads.withLock { $0.append((download, operation)) }
            waiting.started()
            manager.operationQueue.addOperation(operation)
        }
        if signals.received != nil { cancelDownloads() }   // a signal that came while the operations were being made
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiting.resume(continuation)
            waiting.allAdded()
        }
        if signals.received != nil { progress.display.abandon() } else { progress.display.finish(prefix: progress.prefix) }
        let ordered = results.withLock { results in
            entries.indices.map { results[$0] ?? BatchResult(url: entries[$0].url, status: nil, bytes: 0, seconds: 0, output: nil, failure: "did not run") }
        }
        return (ordered, signals.received)
    }
}
