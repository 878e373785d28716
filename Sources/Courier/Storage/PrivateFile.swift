import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner can read, replaced atomically: the cookie jar's file, the HTTP cache's entries, and the
/// command line's session, resume and batch files (`package`: shared with the `courier` target, not public).
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

    /// Why a file could not be written.
    package struct Failure: Error {
        package let reason: String
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
