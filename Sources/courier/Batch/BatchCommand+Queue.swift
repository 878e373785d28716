import Courier
import CourierQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier batch [FILE] --queue STORE [--worker]`: the batch's downloads as jobs of a durable queue
/// (``BatchQueueJob``), drained by this process and any others on the same store, each file by one at a time.
extension BatchCommand {
    func runOnQueue(_ storePath: String, concurrency: Int, timeout: TimeInterval, directory: URL) async throws {
        if worker, file != nil { throw CLIFailure.usage("--worker takes its downloads from the queue: give no FILE") }
        guard worker || file != nil else { throw CLIFailure.usage("give the FILE listing the downloads, or --worker") }
        if kept.session != nil || kept.sessionReadOnly != nil {
            // A session is one machine's file; a queue's downloads run on any machine.
            throw CLIFailure.usage("--session is not used with --queue: give each worker -H or -u")
        }
        let leaseDuration = try NumericOption.lease.seconds(lease)
        var entries: [BatchFile.Entry] = []
        var relativeOutputs: [String] = []
        if let file {
            entries = try readBatch(file, directory: directory).entries
            // A queue job holds a URL and an output; what else a manifest says would be lost on the way to a worker.
            if checksumsFile != nil || report != nil || entries.contains(where: { !$0.mirrors.isEmpty || $0.size != nil || $0.checksum != nil || !$0.headers.isEmpty }) {
                throw CLIFailure.usage("--queue keeps each file's URL and output only: mirrors, sizes, digests, headers, --checksums and --report are not supported with it")
            }
            relativeOutputs = try entries.map { try BatchQueueJob.relativeOutput(of: $0, directory: directory) }
        }
        // Without a session, the header fields and credential are the same for every URL (a password is asked once).
        let parts = try BatchRun.RequestParts(
            common: common, sessionHeaders: [:], url: entries.first?.url ?? URL(fileURLWithPath: "/"))
        let transport = try makeTransport(timeout: timeout)
        let run = try makeRun(entries: entries, requestParts: [], concurrency: concurrency, timeout: timeout,
                              transport: transport, retryInterceptors: [], directory: directory)
        let progress = BatchProgress(total: worker ? nil : entries.count)
        let performer = BatchJobPerformer(run: run, progress: progress, directory: directory, parts: parts)
        let retries = try common.retry
        let configuration = QueueConfiguration(
            maximumConcurrentJobs: concurrency, maximumConcurrentJobsPerHost: nil, leaseDuration: leaseDuration,
            retryPolicy: RetryPolicy(retryLimit: retries, budget: nil), performer: performer)
        let queue = RequestQueue(store: try await QueueCommand.openStore(storePath), configuration: configuration)
        defer { Task { [transport] in try? await transport.shutdown() } }

        var ids: [UUID] = []
        do {
            if !worker {
                ids = try await queue.enqueue(zip(entries, relativeOutputs).map { BatchQueueJob.job(url: $0.url, relativeOutput: $1) })
                let back = try await queue.store.requeueDeadLettered(ids)
                if !back.isEmpty { progress.display.printLine("courier: \(Self.files(back.count)) that failed before \(back.count == 1 ? "is" : "are") back in the queue") }
                let finished = Set(try await queue.jobs(in: [.succeeded], limit: .max).map(\.id)).intersection(ids)
                if !finished.isEmpty {
                    progress.display.printLine("courier: \(finished.count) of \(Self.files(ids.count)) finished already (by an earlier run or another worker)")
                }
            }
        } catch let error as QueueStoreError {
            try? await queue.close()
            throw CLIFailure.usage(error.description)
        }

        let events = queue.events()
        let printer = Task {
            var dead = Set<UUID>()
            for await event in events {
                switch event {
                case .retryScheduled(let id, let attempt, let date, _):
                    let delay = String(format: "%.1f", max(0, date.timeIntervalSinceNow))
                    progress.display.printLine("courier: retry \(attempt) of \(retries) in \(delay) s (job \(id.uuidString.lowercased()))")
                case .deadLettered(let id, let reason):
                    if let id { dead.insert(id) }
                    if id.map(performer.reported) != true {
                        progress.display.printLine("courier: job \(id?.uuidString.lowercased() ?? "-") given up: \(reason)")
                    }
                default:
                    break
                }
            }
            return dead
        }
        let startObserver = progress.observeStarts()
        defer { NotificationCenter.default.removeObserver(startObserver) }
        let draining = Task { try await queue.drain() }
        let signals = StopSignals { _ in draining.cancel() }
        defer { signals.restore() }
        do {
            try await draining.value
        } catch let error as QueueStoreError {
            try? await queue.close()
            throw CLIFailure(status: .network, message: "the queue stopped: \(error.description)")
        }
        if signals.received != nil { progress.display.abandon() } else { progress.display.finish(prefix: progress.prefix) }
        // The batch's files that ended failed: FILE's, whichever worker ran them; a worker's own without FILE.
        let deadInStore = worker ? [] : Set(try await queue.jobs(in: [.deadLettered], limit: .max).map(\.id)).intersection(ids)
        try await queue.close()   // ends the events, so the printer returns
        let dead = deadInStore.union(await printer.value)
        try StandardStreams.write(BatchReport.table(performer.results) + "\n")
        if let signal = signals.received {
            throw CLIFailure(status: signal == SIGTERM ? .terminated : .interrupted,
                             message: "stopped; the files in flight go back to the queue, and their bytes are kept")
        }
        if !dead.isEmpty {
            throw CLIFailure(status: .batchFailed, message: "\(Self.files(dead.count)) failed (courier queue list \(storePath) --state dead)")
        }
    }

    /// "1 file", "2 files".
    private static func files(_ count: Int) -> String { count == 1 ? "1 file" : "\(count) files" }
}
