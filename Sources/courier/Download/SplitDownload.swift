import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `courier download --split N`: one file over up to N connections, each fetching a segment with
/// `Range: bytes=first-last` and `If-Range`, written in place into `FILE.part`.
///
/// A probe (`Range: bytes=0-0`) decides first. The download is split only when the server answers it with a `206`
/// that states the file's length and a strong validator (an `ETag`, else `Last-Modified`), in no content coding, and
/// the file is at least two ``SegmentPlan/minimumSize`` long; otherwise the caller downloads over one connection and
/// `-v` says why. Every segment's `206` must carry exactly the bytes asked for of that representation
/// (`DownloadResumption.carriesSegment`, the check a single-connection resume makes); a `200` or any other answer
/// means the file changed: everything kept is dropped and the download starts again from the first byte (split once
/// more, then over one connection), so segments of two versions are never spliced. The segments and their bytes on disk are recorded beside the file
/// (``SegmentRecord``) before the first byte and about once a second, and at a stop, so `--continue` resumes each.
struct SplitDownload {
    /// How a split download ended.
    enum Result {
        /// It ran: the outcome the command reports, as for a single connection. A `finished` file's response is the
        /// probe's, whose `Repr-Digest` (not its `Content-Digest`: that covers the probe's byte) describes the file.
        case ran(DownloadTransfer.Outcome)
        /// Not split, for the reason given: the caller downloads over one connection.
        case oneConnection(reason: String)
    }

    /// Why a segment could not be used.
    enum SegmentFailure: Error, LocalizedError {
        /// The answer is not the asked-for bytes of the recorded representation: it changed on the server.
        case changed(status: Int)
        /// An error status for a segment.
        case status(Int, range: String)
        /// The body ended before the segment's last byte.
        case short(range: String)
        /// `FILE.part` could not be written.
        case write(path: String, errno: Int32)

        var errorDescription: String? {
            switch self {
            case .changed(let status): "the file changed on the server (a segment was answered with \(status))"
            case .status(let status, let range): "HTTP \(status) for bytes \(range)"
            case .short(let range): "the connection ended before the last byte of bytes \(range)"
            case .write(let path, let errno): "cannot write \(path): \(String(cString: strerror(errno)))"
            }
        }
    }

    /// The single-connection transfer whose options (transport, timeout, cookies, credential, redirects, retries,
    /// `--max-time`, `-v`, naming) the split download shares.
    let transfer: DownloadTransfer
    /// `--split`: the most connections.
    let connections: Int
    /// `--min-split-size`: the least bytes of a segment.
    let minimumSize: Int64
    /// `--session`'s header fields on the request.
    let confinement: SessionHeaderConfinement

    private var files: DownloadFiles { transfer.files }

    /// Runs the download of `request`, continuing `record` when given.
    func run(request: URLRequest, continuing record: SegmentRecord?) async throws -> Result {
        guard confinement.isEmpty else {
            // The probe's redirects run in the library, which cannot tell a --session's fields from the user's.
            return .oneConnection(reason: "--session header fields are kept to their origin across redirects on one connection only")
        }
        var configuration = transfer.sessionConfiguration
        configuration.urlCache = nil
        let manager = URLSessionManager(configuration: configuration)
        if let credential = transfer.credential {
            let original = request.url
            manager.setSessionDidReceiveAuthenticationChallengeBlock { _, challenge in credential.answer(challenge, originalURL: original) }
        }
        defer { manager.invalidateSessionCancelingTasks(true) }

        var record = record
        // A file that changes while it is fetched starts over, split again once; if it changes again it is fetched
        // whole over one connection, where no two versions can meet.
        for _ in 0..<2 {
            var probeRequest = record.map { segmentRequest(request, url: $0.url) } ?? request
            probeRequest.setValue("bytes=0-0", forHTTPHeaderField: "Range")
            let probe: HTTPURLResponse
            do {
                let (response, body) = try await manager.bytes(for: probeRequest)
                body.cancel()
                probe = response
            } catch {
                // No connection, no answer: reported as a single download's failure is (exit 4).
                return .ran(.failed(error))
            }
            if let kept = record, !kept.representation.carriesSegment(probe, first: 0, last: 0) {
                StandardStreams.writeError("courier: \(kept.url.absoluteString) changed on the server since the segments were kept; starting again from the beginning\n")
                files.removeLeftovers()
                record = nil
            }
            if record == nil {
                switch plan(from: probe) {
                case .failure(let refusal): return .oneConnection(reason: refusal.reason)
                case .success(let fresh):
                    try? FileManager.default.removeItem(at: files.partial)
                    record = fresh
                }
            }
            guard let current = record else { continue }
            do {
                return .ran(try await fetch(current, request: request, probe: probe, manager: manager))
            } catch SegmentFailure.changed(_) {
                StandardStreams.writeError("courier: \(current.url.absoluteString) changed on the server during the download; starting again from the beginning\n")
                files.removeLeftovers()
                record = nil
            }
        }
        return .oneConnection(reason: "the file changed on the server again during the split download; fetching it whole")
    }

    /// The record of a fresh split download from the probe's answer, or why there is none.
    private func plan(from probe: HTTPURLResponse) -> Swift.Result<SegmentRecord, SplitRefusal> {
        guard probe.statusCode == 206 else {
            return .failure(SplitRefusal(probe.statusCode == 200 ? "the server does not serve byte ranges (200 to Range: bytes=0-0)" : "the server answered \(probe.statusCode) to Range: bytes=0-0"))
        }
        let representation = DownloadResumption(offset: 0, response: probe)
        guard representation.validator != nil else {
            return .failure(SplitRefusal("the server sent no strong validator (ETag or Last-Modified) to prove the segments are of one file"))
        }
        guard representation.carriesSegment(probe, first: 0, last: 0), let length = representation.completeLength else {
            return .failure(SplitRefusal("the server's answer to Range: bytes=0-0 does not state the file's length (Content-Range: \(probe.value(forHTTPHeaderField: "Content-Range") ?? "none"))"))
        }
        guard length >= 2 * minimumSize else {
            return .failure(SplitRefusal("the file (\(length) bytes) is shorter than two segments of --min-split-size \(minimumSize)"))
        }
        guard let url = probe.url else { return .failure(SplitRefusal("the answer has no URL")) }
        return .success(SegmentRecord(url: url, representation: representation, plan: SegmentPlan(length: length, connections: connections, minimumSize: minimumSize)))
    }

    /// A reason not to split.
    struct SplitRefusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// A request for `url` with `request`'s header fields (credentials and cookies only for its own origin).
    private func segmentRequest(_ request: URLRequest, url: URL) -> URLRequest {
        var segment = URLRequest(url: url)
        segment.timeoutInterval = request.timeoutInterval
        segment.allHTTPHeaderFields = DownloadFiles.fields(of: request, for: url, confinedBy: confinement)
        return segment
    }

    /// Fetches the segments of `record` that are not on disk into `FILE.part` over up to ``connections`` connections.
    /// - Throws: ``SegmentFailure/changed(status:)`` when a segment shows the file changed (nothing is kept).
    private func fetch(_ record: SegmentRecord, request: URLRequest, probe: HTTPURLResponse, manager: URLSessionManager) async throws -> DownloadTransfer.Outcome {
        let state = SplitState(record: record)
        let descriptor = open(files.partial.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            return .failed(SegmentFailure.write(path: files.partial.path, errno: errno))
        }
        var isOpen = true
        defer { if isOpen { close(descriptor) } }
        try files.store(record)

        let kept = record.plan.written
        let display = ProgressDisplay(baseline: kept)
        let length = record.plan.length
        if kept > 0 {
            display.printLine("continuing \(record.url.absoluteString) after \(kept) bytes into \(files.output.path) over up to \(connections) connections")
        } else {
            display.printLine("downloading \(record.url.absoluteString) into \(files.output.path) over up to \(connections) connections (\(record.plan.segments.count) segments)")
        }

        let run = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // A connection with no segment of its own steals half of another's (or has nothing to do).
                for _ in 0..<connections {
                    group.addTask {
                        try await fetchSegments(state: state, request: request, descriptor: descriptor, manager: manager, display: display)
                    }
                }
                try await group.waitForAll()
            }
        }
        let signals = StopSignals { number in
            state.stop(.signal(number))
            run.cancel()
        }
        defer { signals.restore() }
        let deadline = transfer.maxTime.map { seconds in
            Task {
                try await Task.sleep(for: .seconds(NumericOption.timerSeconds(seconds)))
                state.stop(.deadline)
                run.cancel()
            }
        }
        // Bytes that reached FILE.part stay continuable whatever stops the process from here on.
        let files = self.files
        let saver = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                try? files.store(state.record)
            }
        }
        let failure: (any Error)?
        do {
            try await run.value
            failure = nil
        } catch {
            failure = error
        }
        saver.cancel()
        // A record being written now must not land after the finished file's leftovers are removed.
        _ = await saver.result
        deadline?.cancel()
        isOpen = false
        close(descriptor)

        if let changed = failure as? SegmentFailure, case .changed = changed {
            display.abandon()
            throw changed
        }
        if let failure {
            display.abandon()
            let current = state.record
            try? files.store(current)
            let written = current.plan.written
            if let reason = state.stopReason.withLock({ $0 }) {
                // Stopped before any byte: nothing worth continuing.
                if written == 0 { files.removeLeftovers() }
                return .stopped(reason, keptBytes: written > 0 ? written : nil)
            }
            return .broken(failure, keptBytes: written)
        }
        guard state.record.plan.isComplete, (try? IntegrityCheck.size(of: files.partial)) == length else {
            display.abandon()
            return .broken(SegmentFailure.short(range: "0-\(length - 1)"), keptBytes: state.record.plan.written)
        }
        display.update(completed: length, total: length)
        display.finish()
        let target = transfer.serverNamed?.file(for: probe) ?? files.output
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(at: files.partial, to: target)
        try? FileManager.default.removeItem(at: files.segments)
        return .finished(probe, savedAt: target)
    }

    /// One connection's loop: takes segments (stealing halves when none is left) and writes their bytes in place
    /// until nothing is left to take.
    private func fetchSegments(
        state: SplitState, request: URLRequest, descriptor: Int32, manager: URLSessionManager, display: ProgressDisplay
    ) async throws {
        let base = segmentRequest(request, url: state.url)
        var failures = 0
        while let index = state.plan.withLock({ $0.assign() }) {
            do {
                try await fetchSegment(index, state: state, base: base, descriptor: descriptor, manager: manager, display: display)
                state.plan.withLock { $0.release(index) }
            } catch let failure as SegmentFailure {
                state.plan.withLock { $0.release(index) }
                if case .short = failure, failures < transfer.retry {
                    failures += 1
                    continue
                }
                throw failure
            } catch {
                state.plan.withLock { $0.release(index) }
                // A dropped connection is asked again for the segment's rest, as --retry allows.
                guard !Task.isCancelled, failures < transfer.retry else { throw error }
                failures += 1
            }
        }
    }

    /// Fetches segment `index` from its first byte not on disk to its (possibly lowered) end.
    private func fetchSegment(
        _ index: Int, state: SplitState, base: URLRequest, descriptor: Int32, manager: URLSessionManager, display: ProgressDisplay
    ) async throws {
        let (first, last) = state.plan.withLock { $0.pendingRange(of: index) }
        let range = "\(first)-\(last)"
        var request = base
        request.setValue("bytes=\(range)", forHTTPHeaderField: "Range")
        request.setValue(state.representation.validator, forHTTPHeaderField: "If-Range")
        let (response, body) = try await manager.bytes(for: request)
        if transfer.verbose {
            display.printLine("courier: bytes \(range): \(response.statusCode) \(response.value(forHTTPHeaderField: "Content-Range") ?? "")")
        }
        guard state.representation.carriesSegment(response, first: first, last: last) else {
            body.cancel()
            // A 2xx that is not these bytes of this file (If-Range failed: a 200; or another range, length, coding
            // or validator) means the file is not the one the other segments came from.
            if (200..<300).contains(response.statusCode) { throw SegmentFailure.changed(status: response.statusCode) }
            throw SegmentFailure.status(response.statusCode, range: range)
        }
        var offset = first
        let partialPath = files.partial.path   // once: `URL.path` decodes the URL again on every call
        for try await chunk in body {
            let granted = state.plan.withLock { $0.claim(index, upTo: Int64(chunk.count)) }
            if granted > 0 {
                try Self.write(chunk.prefix(Int(granted)), to: descriptor, at: offset, path: partialPath)
                offset += granted
                let (written, done) = state.plan.withLock { plan in
                    plan.confirm(index, granted)
                    return (plan.written, plan.segments[index].isComplete)
                }
                display.update(completed: written, total: state.length)
                if done { break }
            }
            // The segment's end was lowered by a steal: the rest is another connection's.
            if granted < Int64(chunk.count) { break }
        }
        body.cancel()
        guard state.plan.withLock({ $0.segments[index].isComplete }) else { throw SegmentFailure.short(range: range) }
    }

    /// Writes `data` at `offset` of `descriptor` (`pwrite`, so that connections write side by side).
    private static func write(_ data: Data, to descriptor: Int32, at offset: Int64, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < buffer.count {
                let result = pwrite(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw SegmentFailure.write(path: path, errno: errno)
                }
                done += result
            }
        }
    }
}

/// The plan of a running split download, shared by its connections under one lock.
final class SplitState: Sendable {
    /// The URL and representation, which do not change while the segments are fetched.
    private let fixed: SegmentRecord
    /// The segments and their bytes.
    let plan: Mutex<SegmentPlan>
    /// The signal or deadline that stopped the download, the first one only.
    let stopReason = Mutex<DownloadTransfer.StopReason?>(nil)

    init(record: SegmentRecord) {
        fixed = record
        plan = Mutex(record.plan)
    }

    /// The URL the segments are asked from.
    var url: URL { fixed.url }
    /// The representation every segment must belong to.
    var representation: DownloadResumption { fixed.representation }
    /// The file's length (fixed for the run; read per chunk without copying the plan).
    var length: Int64 { fixed.plan.length }

    /// Records what stopped the download, unless something did before.
    func stop(_ reason: DownloadTransfer.StopReason) {
        stopReason.withLock { $0 = $0 ?? reason }
    }

    /// The record as it stands: what is on disk now.
    var record: SegmentRecord {
        var record = fixed
        record.plan = plan.withLock { $0 }
        return record
    }
}
