import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner can read, replaced atomically and read back without following links or past a size: the
/// cookie jar's file, the HTTP cache's entries, and the command line's session, resume and batch files (`package`:
/// shared with the `courier` target, not public).
///
/// The new content goes to a new file beside the old one (`.tmp-<UUID>`, created with mode 0600, so it is never
/// readable by others, not even for a moment), which is then renamed over the old one: a reader sees the old file
/// or the new one whole.
package enum PrivateFile {
    /// The prefix of the temporary files (a directory listing skips them).
    static let temporaryPrefix = ".tmp-"

    /// Replaces `url` with `data`. With `durable`, the file is flushed to the disk (`fsync`) before it is renamed
    /// into place and its folder after, so that once this returns the file survives a crash or a power loss (the
    /// durable queue's bodies); without it (default), a crash may leave the old file or none, never a torn one.
    /// - Throws: A message with the system's reason when the file cannot be written.
    package static func replace(_ url: URL, with data: Data, durable: Bool = false) throws(Failure) {
        try replace(url, durable: durable) { descriptor throws(Failure) in
            try writeAll(of: data, to: descriptor)
        }
    }

    /// Replaces `url` with a copy of the file at `source`, read in pieces of 1 MiB (constant memory for any size),
    /// `durable` as for ``replace(_:with:durable:)``; returns the bytes copied.
    /// - Throws: A message with the system's reason when either file cannot be read or written.
    package static func replace(_ url: URL, copying source: URL, durable: Bool = false) throws(Failure) -> Int64 {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Failure(reason: "\(source.path): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        var total: Int64 = 0
        try replace(url, durable: durable) { descriptor throws(Failure) in
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = buffer.withUnsafeMutableBytes { systemRead(input, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw Failure(reason: "\(source.path): \(String(cString: strerror(errno)))") }
                if count == 0 { return }
                try writeAll(of: buffer[0..<count], to: descriptor)
                total += Int64(count)
            }
        }
        return total
    }

    /// `fsync` on a folder: what makes a file created, renamed or removed in it durable.
    /// - Throws: A message with the system's reason.
    package static func flushFolder(_ folder: URL) throws(Failure) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
    }

    /// Writes through `body` into a new owner-only file beside `url` and renames it over `url`; the new file is
    /// removed when anything fails.
    private static func replace(_ url: URL, durable: Bool, _ body: (Int32) throws(Failure) -> Void) throws(Failure) {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(temporaryPrefix + UUID().uuidString).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        do throws(Failure) {
            try body(descriptor)
            if durable, fsync(descriptor) != 0 { throw Failure(reason: String(cString: strerror(errno))) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, url.path) == 0 else {
            let failure = Failure(reason: String(cString: strerror(errno)))
            unlink(temporary)
            throw failure
        }
        if durable { try flushFolder(folder) }
    }

    /// Writes all of `bytes`, retrying after a signal.
    private static func writeAll(of bytes: some ContiguousBytes, to descriptor: Int32) throws(Failure) {
        let failure = bytes.withUnsafeBytes { buffer -> String? in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
        if let failure { throw Failure(reason: failure) }
    }

    /// The contents of the regular file at `url` when it holds at most `limit` bytes, read through one descriptor
    /// opened without following a symbolic link: `nil` when it is missing, a link, not a regular file, larger than
    /// `limit`, or unreadable. Its size is taken from the open descriptor, so nothing swapped in between is read,
    /// and no more than `limit` bytes are ever read (a file that grows while being read is refused).
    package static func contents(of url: URL, atMost limit: Int) -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
              status.st_size >= 0, status.st_size <= limit
        else { return nil }
        let size = Int(status.st_size)
        var data = Data(count: size)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < size {
                let count = systemRead(descriptor, buffer.baseAddress.map { $0 + offset }, size - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            // One more byte would mean the file grew past the size it was checked at.
            var probe: UInt8 = 0
            return systemRead(descriptor, &probe, 1) == 0
        }
        return complete ? data : nil
    }

    /// Why a file could not be written.
    package struct Failure: Error {
        package let reason: String
    }

    /// `read(2)`.
    private static func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, bytes, count)
        #else
        Darwin.read(descriptor, bytes, count)
        #endif
    }

    /// `write(2)`.
    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }
}
