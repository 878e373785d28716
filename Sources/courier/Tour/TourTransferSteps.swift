import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The operation steps: a download paused and resumed with Range/If-Range, and a batch.
extension Tour {
    func pausedDownload(_ log: TourLog) async throws -> String {
        let size: Int64 = 32 << 20
        let path = "/range/\(size)"
        let directory = FileManager.default.temporaryDirectory
        let paused = directory.appendingPathComponent("courier-tour-paused-\(UUID().uuidString).bin")
        let uninterrupted = directory.appendingPathComponent("courier-tour-whole-\(UUID().uuidString).bin")
        defer {
            try? FileManager.default.removeItem(at: paused)
            try? FileManager.default.removeItem(at: uninterrupted)
        }

        let operation = HTTPRequestOperation(request: URLRequest(url: try url(path)))
        operation.outputFileURL = paused
        let pausedOnce = Atomic<Bool>(false)
        operation.setDownloadProgressBlock { [weak operation] _, total, _ in
            guard total >= 8 << 20, !pausedOnce.exchange(true, ordering: .relaxed) else { return }
            operation?.pause()
        }
        operations.operationQueue.addOperation(operation)
        try await waitUntil(seconds: 10) { operation.isPaused || operation.isFinished }
        guard operation.isPaused else { throw TourStepFailure("the download finished before it could be paused") }

        try await Task.sleep(for: .milliseconds(100))
        let atPause = try IntegrityCheck.size(of: paused)
        try await Task.sleep(for: .milliseconds(400))
        guard try IntegrityCheck.size(of: paused) == atPause else { throw TourStepFailure("bytes kept arriving while paused") }
        log.note("⏸ paused with \(ProgressLine.bytes(atPause)) of \(ProgressLine.bytes(size)) on disk; nothing arrived in 0.4 s")

        operation.resume()
        _ = try await operation.responseData()
        guard let resumed = lastRecorded(path), let range = resumed.header("Range"), let ifRange = resumed.header("If-Range") else {
            throw TourStepFailure("the resumed request carried no Range and If-Range")
        }
        let status = operation.response?.statusCode ?? 0
        log.note("▶ resumed with Range: \(range), If-Range: \(ifRange) → \(status)")
        guard status == 206, range == "bytes=\(atPause)-" else { throw TourStepFailure("expected a 206 for bytes=\(atPause)-, got \(status) for \(range)") }

        _ = try await session.download(String(path.dropFirst()), to: uninterrupted)
        let pausedDigest = try TourDigest.sha256(ofFile: paused)
        let wholeDigest = try TourDigest.sha256(ofFile: uninterrupted)
        log.note("SHA-256 paused and resumed: \(pausedDigest)")
        log.note("SHA-256 in one go:          \(wholeDigest)")
        guard pausedDigest == wholeDigest, try IntegrityCheck.size(of: paused) == size else { throw TourStepFailure("the files differ") }
        return "HTTPRequestOperation to a file: \(ProgressLine.bytes(size)), the digests match"
    }

    func batch(_ log: TourLog) async throws -> String {
        let paths = ["/get?batch=1", "/headers", "/json", "/delay/0.2", "/ip"]
        let batchOperations = try paths.map { path in
            operations.httpRequestOperation(with: URLRequest(url: try url(path)), success: nil, failure: nil)
        }
        let counts = Mutex<[Int]>([])
        let finished: [URLConnectionOperation] = await withCheckedContinuation { continuation in
            let all = URLConnectionOperation.batch(of: batchOperations, progress: { finished, total in
                counts.withLock { $0.append(finished) }
                log.note("\(finished)/\(total) finished")
            }, completion: { continuation.resume(returning: $0) })
            operations.operationQueue.addOperations(all, waitUntilFinished: false)
        }
        let statuses = finished.map { $0.response?.statusCode ?? 0 }
        guard statuses.allSatisfy({ $0 == 200 }) else { throw TourStepFailure("statuses \(statuses)") }
        guard counts.withLock({ $0 }) == Array(1...paths.count) else { throw TourStepFailure("progress was \(counts.withLock { $0 })") }
        let decoded = batchOperations.filter { $0.responseObject is [String: Any] }.count
        guard decoded == paths.count else { throw TourStepFailure("only \(decoded) of \(paths.count) bodies decoded as JSON") }
        return "\(paths.count) operations on the manager's queue, all 200 and decoded; the completion ran after every one"
    }

    // MARK: Helpers

    /// Polls `condition` every 5 ms until it holds; fails after `seconds`.
    func waitUntil(seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TourStepFailure("gave up waiting after \(seconds) s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
