import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files written so that they survive a crash or a power loss once written: the bytes go to a temporary file in the
/// same folder, which is flushed to the disk (`fsync`), renamed into place, and the folder is flushed too so that the
/// rename itself is on the disk. A reader never sees a file half written: it sees none, or all of it.
///
/// Hand-written: Foundation's atomic writes rename but flush neither the file nor its folder.
enum DurableFile {
    /// Writes `data` to `destination`.
    static func write(_ data: Data, to destination: URL) throws {
        try replace(destination) { descriptor throws in
            try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in
                try writeAll(bytes, to: descriptor, path: destination.path)
            }
        }
    }

    /// Copies the file at `source` to `destination`, in pieces of 1 MiB (constant memory for any size).
    static func copy(_ source: URL, to destination: URL) throws -> Int64 {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure(source.path) }
        defer { close(input) }
        var total: Int64 = 0
        try replace(destination) { descriptor throws in
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure(source.path)
                }
                if count == 0 { return }
                try buffer.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in
                    try writeAll(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), to: descriptor, path: destination.path)
                }
                total += Int64(count)
            }
        }
        return total
    }

    /// Makes the folder `url` (and its parents) and flushes its parent, so that the folder survives a power loss.
    static func makeFolder(_ url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw QueueStoreError.bodyNotStored(path: url.path, reason: error.localizedDescription)
        }
        try flushFolder(url.deletingLastPathComponent())
    }

    /// Writes through `body` into a temporary file beside `destination`, flushes it, renames it into place and
    /// flushes the folder. The temporary file is removed when anything fails.
    private static func replace(_ destination: URL, _ body: (CInt) throws -> Void) throws {
        let folder = destination.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(temporary.path) }
        do {
            try body(descriptor)
            guard fsync(descriptor) == 0 else { throw failure(temporary.path) }
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        close(descriptor)
        guard rename(temporary.path, destination.path) == 0 else {
            let error = failure(destination.path)
            unlink(temporary.path)
            throw error
        }
        try flushFolder(folder)
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: CInt, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            offset += written
        }
    }

    private static func systemWrite(_ descriptor: CInt, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }

    /// `fsync` on a folder: what makes a file created or renamed in it durable.
    static func flushFolder(_ folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(folder.path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure(folder.path) }
    }

    private static func failure(_ path: String) -> QueueStoreError {
        .bodyNotStored(path: path, reason: String(cString: strerror(errno)))
    }
}
