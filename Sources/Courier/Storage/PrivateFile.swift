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

    /// Replaces `url` with `data`.
    /// - Throws: A message with the system's reason when the file cannot be written.
    package static func replace(_ url: URL, with data: Data) throws(Failure) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(temporaryPrefix + UUID().uuidString).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        close(descriptor)
        if failure == nil, rename(temporary, url.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw Failure(reason: failure)
        }
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
