import Courier
import CourierQueue
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs one attempt of a `courier batch --queue` job: the file's download as `courier batch` makes it
/// (``BatchDownload``: into `OUTPUT.part`, continuing the part this machine kept, checked, then named), its line
/// printed, and its ending turned into what the queue decides on: a response below 400 succeeds, any other status
/// goes to the retry policy, a network error is retried, a file that failed its checks is dead-lettered.
final class BatchJobPerformer: JobPerformer {
    /// A download that did not end as a file, in the words of its result line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let run: BatchRun
    private let manager: HTTPRequestOperationManager
    private let progress: BatchProgress
    private let directory: URL
    private let parts: BatchRun.RequestParts
    private let ended = Mutex<(results: [BatchResult], jobs: Set<UUID>)>(([], []))
    private let stopping = Atomic<Bool>(false)

    /// A performer downloading into `directory` with `run`'s settings, every request with `parts`.
    init(run: BatchRun, progress: BatchProgress, directory: URL, parts: BatchRun.RequestParts) {
        self.run = run
        manager = run.makeManager()
        self.progress = progress
        self.directory = directory
        self.parts = parts
    }

    /// The downloads this process ended, in the order they ended.
    var results: [BatchResult] { ended.withLock { $0.results } }

    /// Whether this process printed the line of job `id` (a job given up without one, an unreadable row say, is
    /// printed by the command).
    func reported(_ id: UUID) -> Bool { ended.withLock { $0.jobs.contains(id) } }

    func perform(_ request: URLRequest, body: JobBody, job: QueuedJob) async throws -> JobResponse {
        let entry: BatchFile.Entry
        do {
            entry = try BatchQueueJob.entry(of: job, directory: directory)
        } catch {
            throw Failure(description: error.description)
        }
        let download = BatchDownload(entry: entry, parts: parts)
        if let earlier = download.finishedEarlier(in: run.finishedFiles) {
            // This machine finished it, and the outcome did not reach the store (a crash between the two): the file,
            // unchanged since it was verified, is the answer; nothing is sent again.
            // (200, saying so in a header field of the outcome.)
            guard let response = HTTPURLResponse(url: entry.url, statusCode: 200, httpVersion: "HTTP/1.1",
                                                 headerFields: ["Courier-Batch": "finished by an earlier run"])
            else { throw Failure(description: "\(entry.url) cannot be an answer's URL") }
            report(earlier, of: job)
            return JobResponse(response: response, body: Data(), bodyByteCount: Int(earlier.bytes))
        }
        do {
            try FileManager.default.createDirectory(at: entry.output.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create the folder of \(entry.output.path): \(error.localizedDescription)")
        }
        let (endings, delivered) = AsyncStream<BatchDownload.Ending>.makeStream()
        let operation = download.makeOperation(
            run: run, manager: manager, progress: progress, isStopping: { [self] in stopping.load(ordering: .relaxed) }
        ) { ending in
            delivered.yield(ending)
            delivered.finish()
        }
        let ending = await withTaskCancellationHandler {
            manager.operationQueue.addOperation(operation)
            var iterator = endings.makeAsyncIterator()
            return await iterator.next()
        } onCancel: {
            // The worker is stopping: the bytes so far are archived to be continued, and the job goes back to the queue.
            self.stopping.store(true, ordering: .relaxed)
            download.stop(operation)
        }
        guard let ending else { throw CancellationError() }
        if !Task.isCancelled { report(ending.result, of: job) }
        if ending.failure == nil, let response = ending.response {
            return JobResponse(response: response, body: Data(), bodyByteCount: Int(ending.result.bytes))
        }
        if let response = ending.response, response.statusCode >= 400 {
            return JobResponse(response: response, body: Data())
        }
        // A network error stays itself, for the retry policy to tell a transient one; anything else is final.
        if let error = ending.failure as? URLError { throw error }
        throw Failure(description: ending.result.failure ?? "no response")
    }

    private func report(_ result: BatchResult, of job: QueuedJob) {
        ended.withLock {
            $0.results.append(result)
            $0.jobs.insert(job.id)
        }
        progress.report(result)
    }
}
