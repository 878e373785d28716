import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's kind, size and modification time from one `stat(2)` (`package`: shared with the `courier` target).
///
/// `FileManager.attributesOfItem(atPath:)` gives the same facts, but on Linux it also looks up the owner's and the
/// group's names (through NSS: `/etc/passwd`, `/etc/group`) and builds a dictionary of boxed values: about 27 µs a call
/// on this machine against 2 µs for the `stat` alone. A download asks for a file's size or identity several times
/// (the partial file, the output, the batch's record of finished files), so a batch of small files paid for it
/// thousands of times.
package struct FileStatus: Sendable, Equatable {
    /// What is at the path, as `stat` follows links.
    package enum Kind: Sendable, Equatable {
        case regular
        case directory
        case other
    }

    package let kind: Kind
    /// The size in bytes.
    package let size: Int64
    /// The last modification, as `FileManager` reports it (`.modificationDate`).
    package let modified: Date

    /// The status of what is at `path` (links followed), or `nil` when `stat` fails (nothing there, no permission).
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        default: kind = .other
        }
        size = Int64(status.st_size)
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        // Computed as Foundation computes `.modificationDate` (from the reference date), to the same `Double`.
        modified = Date(
            timeIntervalSinceReferenceDate: TimeInterval(time.tv_sec) - Date.timeIntervalBetween1970AndReferenceDate
                + TimeInterval(time.tv_nsec) / 1_000_000_000
        )
    }

    /// The size of the file at `path`, or `nil` when there is none.
    package static func size(atPath path: String) -> Int64? {
        FileStatus(path: path)?.size
    }

    /// Whether a regular file is at `path` (links followed).
    package static func isRegularFile(atPath path: String) -> Bool {
        FileStatus(path: path)?.kind == .regular
    }
}
