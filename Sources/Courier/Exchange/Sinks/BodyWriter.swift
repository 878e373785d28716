import Foundation

/// Writes a response body to its sink, chunk by chunk, from the exchange's task.
protocol BodyWriter {
    /// Appends a chunk.
    mutating func write(_ chunk: Data) throws
    /// Ends the body successfully; returns the in-memory bytes for the memory sink.
    mutating func finish() throws -> Data?
    /// Ends the body after a failure; whatever was written stays.
    mutating func abandon()
}

extension ResponseSink {
    /// A writer for this sink. `stream` sinks have none (the caller reads the body).
    func makeWriter() throws -> (any BodyWriter)? {
        switch self {
        case .memory: return MemoryBodyWriter()
        case .file(let url, let offset): return try FileBodyWriter(url: url, offset: offset)
        case .outputStream(let target): return OutputStreamBodyWriter(target: target)
        case .stream: return nil
        }
    }
}

struct MemoryBodyWriter: BodyWriter {
    private var data = Data()
    mutating func write(_ chunk: Data) throws { data.append(chunk) }
    mutating func finish() throws -> Data? { data }
    mutating func abandon() {}
}

/// Writes to a file with large, coalesced writes.
struct FileBodyWriter: BodyWriter {
    /// Chunks are gathered up to this size before each `write(2)`: large enough to save system
    /// calls, small enough that the buffer stays in the CPU cache while the kernel copies it into
    /// the page cache (1 MiB writes measured several times slower per byte than 256 KiB ones).
    static let coalescingSize = 256 * 1024

    private let handle: FileHandle
    private let url: URL
    private var pending = Data()

    init(url: URL, offset: Int64) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw URLError(.cannotCreateFile, userInfo: [
                    NSURLErrorFailingURLErrorKey: url,
                    NSLocalizedDescriptionKey: "Cannot create \(url.path).",
                ])
            }
        }
        do {
            handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(max(offset, 0)))
            try handle.seekToEnd()
        } catch {
            throw URLError(.cannotOpenFile, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSUnderlyingErrorKey: error,
                NSLocalizedDescriptionKey: "Cannot open \(url.path) for writing: \(error).",
            ])
        }
        self.url = url
        pending.reserveCapacity(Self.coalescingSize)
    }

    mutating func write(_ chunk: Data) throws {
        if pending.isEmpty && chunk.count >= Self.coalescingSize {
            try flush(chunk)
            return
        }
        pending.append(chunk)
        if pending.count >= Self.coalescingSize {
            try flush(pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    mutating func finish() throws -> Data? {
        defer { try? handle.close() }
        try flush(pending)
        pending.removeAll()
        return nil
    }

    mutating func abandon() {
        try? flush(pending)
        pending.removeAll()
        try? handle.close()
    }

    private func flush(_ data: Data) throws {
        guard !data.isEmpty else { return }
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw URLError(.cannotWriteToFile, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSUnderlyingErrorKey: error,
                NSLocalizedDescriptionKey: "Cannot write to \(url.path): \(error).",
            ])
        }
    }
}

struct OutputStreamBodyWriter: BodyWriter {
    let target: OutputStreamTarget

    init(target: OutputStreamTarget) {
        self.target = target
        target.open()
    }

    mutating func write(_ chunk: Data) throws {
        try target.write(chunk)
    }

    mutating func finish() throws -> Data? {
        target.close()
        return nil
    }

    mutating func abandon() {
        target.close()
    }
}
