#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// rename(2) that fails rather than replace what has the new name: one directory operation where link(2) and then
/// unlink(2) of the old name take two. A batch of small files spends most of its time in the kernel's directory
/// operations (each holds the directory's lock while the file system allocates or frees an inode), so each one saved
/// per file counts.
///
/// Linux has it as `renameat2(…, RENAME_NOREPLACE)` (glibc 2.28 and later), which Swift's Glibc module does not
/// declare (glibc's header does only under `_GNU_SOURCE`): it is looked up by name once. Darwin has
/// `renamex_np(…, RENAME_EXCL)`.
enum ExclusiveRename {
    /// How a rename ended.
    enum Outcome: Equatable {
        /// The file has its new name; the old one is gone.
        case renamed
        /// The new name is taken: nothing changed.
        case taken
        /// Not done, for another reason (no such call on this system, a file system that cannot, a permission, …):
        /// the caller falls back to another way.
        case notDone
    }

    /// Gives `from` the name `to` unless `to` exists.
    static func rename(_ from: String, to: String) -> Outcome {
        #if os(Linux)
        guard let renameat2 = linuxRenameat2 else { return .notDone }
        let status = renameat2(AT_FDCWD, from, AT_FDCWD, to, renameNoReplace)
        #elseif canImport(Darwin)
        let status = renamex_np(from, to, UInt32(RENAME_EXCL))
        #else
        let status: Int32 = -1
        #endif
        if status == 0 { return .renamed }
        return errno == EEXIST ? .taken : .notDone
    }

    #if os(Linux)
    private typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// `RENAME_NOREPLACE` of linux/fs.h.
    private static let renameNoReplace: UInt32 = 1

    /// The C library's `renameat2`, `nil` where it has none (glibc before 2.28) or a static binary cannot look it up.
    private static let linuxRenameat2: Renameat2? = {
        // A nil handle is RTLD_DEFAULT: the symbol as the program's own lookup finds it.
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: Renameat2.self)
    }()
    #endif
}
