import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes buffers to a file, in order, on a serial queue of its own, so the task receiving a
/// body never blocks on the disk. (The kernel stalls a writer while it flushes dirty pages; a
/// receiver blocked there stops reading the socket, and the transfer stalls with it.)
///
/// At most ``depth`` buffers are queued or being written; ``submit(_:)`` suspends beyond that,
/// so memory stays bounded and a slow disk slows the download down through backpressure.
final class FileWriteQueue: Sendable {
    /// The most buffers queued or being written at once.
    static let depth = 4

    private struct State {
        var inFlight = 0
        var waiter: CheckedContinuation<Void, Never>?
        var failure: URLError?
        /// Whether ``close(after:)`` closed the descriptor (else `deinit` does).
        var closed = false
    }

    /// The open file, closed by ``close(after:)``.
    private let descriptor: Int32
    private let url: URL
    private let queue = DispatchQueue(label: "Courier.FileWriteQueue")
    private let state = Mutex(State())

    init(descriptor: Int32, url: URL) {
        self.descriptor = descriptor
        self.url = url
    }

    deinit {
        // A writer dropped without `finish` or `abandon` (its task was torn down) still releases the file.
        if !state.withLock({ $0.closed }) { systemClose(descriptor) }
    }

    /// Queues `chunks` to be written (with one gathering `writev(2)`, no copy) after everything
    /// queued before them; suspends while ``depth`` batches are already queued. Throws the error
    /// of an earlier write, if one failed.
    func submit(_ chunks: [Data]) async throws {
        try throwIfFailed()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.inFlight >= Self.depth else {
                    state.inFlight += 1
                    return true
                }
                state.waiter = continuation
                return false
            }
            if admitted { continuation.resume() }
        }
        queue.async { [self] in
            write(chunks)
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.inFlight -= 1
                guard let waiter = state.waiter else { return nil }
                state.waiter = nil
                state.inFlight += 1
                return waiter
            }
            waiter?.resume()
        }
    }

    /// The most bytes ``close(after:)`` writes on the caller's thread when nothing else is queued: a small body's
    /// write and close cost less than the two thread wake-ups of a turn of the queue, and a write of this size into the
    /// page cache does not wait for the disk.
    static let inlineCloseLimit = 64 * 1024

    /// Writes `last` after everything queued, then closes the file; returns when that is done. A small `last` with
    /// nothing queued before it is written and closed here; otherwise in one turn of the queue (a small body costs one
    /// hop, not two). Throws the first write error, if any (the file is closed either way).
    func close(after last: [Data] = []) async throws {
        if last.reduce(0, { $0 + $1.count }) <= Self.inlineCloseLimit, state.withLock({ $0.inFlight == 0 }) {
            // Every batch `submit` queued has been written (its count drops once the write is done), and this
            // writer's one caller submits nothing more: nothing can come before these bytes.
            if !last.isEmpty { write(last) }
            state.withLock { $0.closed = true }
            systemClose(descriptor)
            try throwIfFailed()
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                if !last.isEmpty { write(last) }
                state.withLock { $0.closed = true }
                systemClose(descriptor)
                continuation.resume()
            }
        }
        try throwIfFailed()
    }

    private func throwIfFailed() throws {
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// Runs on `queue`, or in ``close(after:)`` when nothing is queued. After a failure, later buffers are dropped.
    private func write(_ chunks: [Data]) {
        guard state.withLock({ $0.failure == nil }) else { return }
        var vectors: [iovec] = []
        vectors.reserveCapacity(chunks.count)
        let code = gather(chunks, from: 0, into: &vectors)
        guard code != 0 else { return }
        let failure = URLError.fileSink(.cannotWriteToFile, url, "write to", errno: code)
        state.withLock { $0.failure = failure }
    }

    /// Pins each chunk's bytes, then writes them all; returns 0 or the `errno` of the failure.
    private func gather(_ chunks: [Data], from index: Int, into vectors: inout [iovec]) -> Int32 {
        guard index < chunks.count else { return writeVectors(&vectors) }
        return chunks[index].withUnsafeBytes { raw in
            if let base = raw.baseAddress, raw.count > 0 {
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: raw.count))
            }
            return gather(chunks, from: index + 1, into: &vectors)
        }
    }

    /// `writev(2)` until every vector is written (short writes continue where they stopped).
    private func writeVectors(_ vectors: inout [iovec]) -> Int32 {
        var first = 0
        while first < vectors.count {
            let count = min(vectors.count - first, 1024)  // IOV_MAX on Linux and Darwin
            let written = vectors.withUnsafeBufferPointer { buffer in
                writev(descriptor, buffer.baseAddress.map { $0 + first }, Int32(count))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            var remaining = written
            while remaining > 0, first < vectors.count {
                if remaining >= vectors[first].iov_len {
                    remaining -= vectors[first].iov_len
                    first += 1
                } else {
                    vectors[first].iov_base = vectors[first].iov_base.map { $0 + remaining }
                    vectors[first].iov_len -= remaining
                    remaining = 0
                }
            }
        }
        return 0
    }
}

/// `close(2)`, named apart from ``FileWriteQueue/close(after:)``.
private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
