import Foundation

/// Writes a response body to its sink, chunk by chunk, from the exchange's task.
protocol BodyWriter {
    /// Appends a chunk (suspending while the sink is busy).
    mutating func write(_ chunk: Data) async throws
    /// Ends the body successfully.
    mutating func finish() async throws
    /// Ends the body after a failure; whatever was written stays.
    mutating func abandon() async
}

extension ResponseSink {
    /// A writer for this sink. Memory sinks have none (the exchange keeps their bytes, readable while they arrive),
    /// nor has the `stream` sink (the caller reads the body).
    func makeWriter() throws -> (any BodyWriter)? {
        switch self {
        case .memory, .memoryContinuing, .stream: return nil
        case .file(let url, let offset): return try FileBodyWriter(url: url, offset: offset)
        case .outputStream(let target): return OutputStreamBodyWriter(target: target)
        }
    }
}

/// Writes to a file with large gathered writes (the chunks are not copied), made off the
/// receiving task by a ``FileWriteQueue`` (a few batches ahead at most).
struct FileBodyWriter: BodyWriter {
    /// Chunks are gathered up to this size for each `writev(2)`: large enough to save system
    /// calls, small enough that the bytes are still in the CPU cache while the kernel copies them
    /// into the page cache (1 MiB writes measured several times slower per byte than 256 KiB ones).
    static let coalescingSize = 256 * 1024

    private let output: FileWriteQueue
    /// Chunks not yet handed to the queue, and their size.
    private var pending: [Data] = []
    private var pendingBytes = 0

    init(url: URL, offset: Int64) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw URLError(.cannotCreateFile, userInfo: [
                    NSURLErrorFailingURLErrorKey: url,
                    NSLocalizedDescriptionKey: "Cannot create \(url.path).",
                ])
            }
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: url)
            // Truncate only what must go: ext4 flushes a file that was truncated to zero when it
            // is closed (auto_da_alloc), which stalled every fresh download at its end.
            let keep = UInt64(max(offset, 0))
            if try handle.seekToEnd() > keep {
                try handle.truncate(atOffset: keep)
            }
            try handle.seekToEnd()
        } catch {
            throw URLError(.cannotOpenFile, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSUnderlyingErrorKey: error,
                NSLocalizedDescriptionKey: "Cannot open \(url.path) for writing: \(error).",
            ])
        }
        output = FileWriteQueue(handle: handle, url: url)
    }

    mutating func write(_ chunk: Data) async throws {
        guard !chunk.isEmpty else { return }
        pending.append(chunk)
        pendingBytes += chunk.count
        if pendingBytes >= Self.coalescingSize {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
            try await output.submit(batch)
        }
    }

    mutating func finish() async throws {
        let rest = pending
        pending = []
        do {
            if !rest.isEmpty { try await output.submit(rest) }
        } catch {
            try? await output.close()
            throw error
        }
        try await output.close()
    }

    mutating func abandon() async {
        let rest = pending
        pending = []
        if !rest.isEmpty { try? await output.submit(rest) }
        try? await output.close()
    }
}

struct OutputStreamBodyWriter: BodyWriter {
    let target: OutputStreamTarget

    init(target: OutputStreamTarget) {
        self.target = target
        target.open()
    }

    mutating func write(_ chunk: Data) async throws {
        try await target.write(chunk)
    }

    mutating func finish() {
        if !target.closedByOwner { target.close() }
    }

    mutating func abandon() {
        if !target.closedByOwner { target.close() }
    }
}
