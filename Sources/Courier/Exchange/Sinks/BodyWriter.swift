import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    func makeWriter() async throws -> (any BodyWriter)? {
        switch self {
        case .memory, .memoryContinuing, .stream: return nil
        case .file(let url, let offset): return try await FileBodyWriter(url: url, offset: offset)
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

    /// Opens `url` in its turn of the ``DirectoryOperationQueue``.
    init(url: URL, offset: Int64) async throws {
        let keep = max(offset, 0)
        output = FileWriteQueue(descriptor: try await DirectoryOperationQueue.run { try Self.openAtEnd(url, keeping: keep) }, url: url)
    }

    /// Opens `url` for writing at its end, creating it (mode 0666 less the umask) when it is missing, and cuts it to
    /// `keep` bytes when it is longer. The file is made by `open(2)` itself: `FileManager.createFile` writes an empty
    /// file beside the path and renames it over, a second inode, which ext4 is slow to allocate beside recently
    /// removed files (in one run, 42 % of a batch of 1,000 small files' CPU was in `openat`). An existing file is
    /// opened as before (through a link to it, too); a new one is made with `O_EXCL`, so a dangling link at the path
    /// is refused instead of creating a file wherever it points.
    ///
    /// When nothing is kept (`keep` 0, a fresh download), the file is made first: a new file is then one system call,
    /// not four (a failed open, the creation, `fstat` and `lseek`); only a name that exists takes the longer way.
    private static func openAtEnd(_ url: URL, keeping keep: Int64) throws -> Int32 {
        let path = url.path
        if keep == 0 {
            let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if created >= 0 { return created }
            guard errno == EEXIST else { throw URLError.fileSink(.cannotCreateFile, url, "create or open", errno: errno) }
        }
        var descriptor = open(path, O_WRONLY | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT {
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else { throw URLError.fileSink(.cannotCreateFile, url, "create or open", errno: errno) }
        var status = stat()
        // Truncate only what must go: ext4 flushes a file that was truncated to zero when it is closed
        // (auto_da_alloc), which stalled every fresh download at its end.
        guard fstat(descriptor, &status) == 0,
            Int64(status.st_size) <= keep || ftruncate(descriptor, off_t(keep)) == 0,
            lseek(descriptor, 0, SEEK_END) >= 0
        else {
            let code = errno
            close(descriptor)
            throw URLError.fileSink(.cannotOpenFile, url, "truncate or seek in", errno: code)
        }
        return descriptor
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
        try await output.close(after: rest)
    }

    mutating func abandon() async {
        let rest = pending
        pending = []
        try? await output.close(after: rest)
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
