import Crypto
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Entries as files in one directory (one file per key, mode 0600 in a 0700 directory), least recently used
/// evicted first once their sizes pass the capacity; it survives the process.
///
/// A file is replaced atomically (see `PrivateFile`), so a reader sees the old entry or the new one whole; a file torn
/// by a crash (or changed by anyone) fails its checksum and is deleted when next read. Each
/// process keeps its own index of sizes and last uses (from the files' modification times at start), so several
/// processes may share a directory; their evictions then only approximate the capacity.
final class DiskCacheStore: Sendable {
    let directory: URL
    /// The most bytes of files kept.
    let capacity: Int
    /// The most bytes of a file this store writes: the largest entry the cache stores, with its encoded head and
    /// framing (never more than ``capacity``). A larger file is not read.
    let largestFile: Int

    /// Files by name (the hash of their key), with their sizes and last uses.
    private struct State {
        var files: [String: (size: Int, lastUse: Date)] = [:]
        var size = 0
    }

    private let state = Mutex(State())
    private static let suffix = ".entry"

    /// Opens (creating when needed) the store in `directory`.
    /// - Throws: ``HTTPCacheError`` when the directory cannot be created or listed.
    /// - Parameter largestEntry: The cache's ``HTTPCache/maximumEntrySize``.
    init(directory: URL, capacity: Int, largestEntry: Int) throws {
        self.directory = directory
        self.capacity = Swift.max(0, capacity)
        let (framed, overflow) = Swift.max(0, largestEntry).addingReportingOverflow(CachedEntryFile.largestFraming)
        largestFile = Swift.min(self.capacity, overflow ? Int.max : framed)
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw HTTPCacheError(reason: "cannot create the cache directory \(directory.path) (\(error.localizedDescription))")
        }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw HTTPCacheError(reason: "cannot list the cache directory \(directory.path) (\(error.localizedDescription))")
        }
        var index = State()
        let staleTemporary = Date().addingTimeInterval(-3600)
        for name in names {
            let path = directory.appendingPathComponent(name).path
            guard let status = FileStatus(path: path) else { continue }
            let modified = status.modified
            if name.hasPrefix(PrivateFile.temporaryPrefix) {
                // Left by a process that stopped mid-write (a live writer's is younger).
                if modified < staleTemporary { unlink(path) }
                continue
            }
            guard name.hasSuffix(Self.suffix) else { continue }
            let size = Int(status.size)
            index.files[String(name.dropLast(Self.suffix.count))] = (size, modified)
            index.size += size
        }
        state.withLock { $0 = index }
        evict()
    }

    /// The bytes of the files this process knows of.
    var size: Int { state.withLock { $0.size } }

    func entry(for key: String) -> CachedEntry? {
        let name = Self.fileName(for: key)
        guard state.withLock({ $0.files[name] != nil }) else { return nil }
        let url = directory.appendingPathComponent(name + Self.suffix)
        // A file larger than any this store writes (or a link to one) is not its own, and is never read into memory.
        guard let data = PrivateFile.contents(of: url, atMost: largestFile) else {
            forget(name)
            return nil
        }
        guard let entry = try? CachedEntryFile.decode(data) else {
            // Torn or corrupt: discarded, never served.
            forget(name)
            unlink(url.path)
            return nil
        }
        let now = Date()
        state.withLock { $0.files[name]?.lastUse = now }
        // The modification time carries the last use to the next process.
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
        return entry
    }

    /// Writes `entry`; an entry larger than the whole capacity is not kept (and replaces nothing).
    func store(_ entry: CachedEntry, for key: String) {
        guard let data = try? CachedEntryFile.encode(entry), data.count <= largestFile else { return }
        let name = Self.fileName(for: key)
        do throws(PrivateFile.Failure) {
            try PrivateFile.replace(directory.appendingPathComponent(name + Self.suffix), with: data)
        } catch {
            return
        }
        state.withLock { state in
            if let old = state.files[name] { state.size -= old.size }
            state.files[name] = (data.count, Date())
            state.size += data.count
        }
        evict()
    }

    func remove(_ key: String) {
        let name = Self.fileName(for: key)
        forget(name)
        unlink(directory.appendingPathComponent(name + Self.suffix).path)
    }

    func removeAll() {
        let names = state.withLock { state -> [String] in
            defer { state = State() }
            return Array(state.files.keys)
        }
        for name in names { unlink(directory.appendingPathComponent(name + Self.suffix).path) }
    }

    private func forget(_ name: String) {
        state.withLock { state in
            if let old = state.files.removeValue(forKey: name) { state.size -= old.size }
        }
    }

    /// Deletes the least recently used files until the rest fit (the files are deleted outside the lock).
    private func evict() {
        let victims = state.withLock { state -> [String] in
            guard state.size > capacity else { return [] }
            var victims: [String] = []
            for (name, file) in state.files.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where state.size > capacity {
                victims.append(name)
                state.files[name] = nil
                state.size -= file.size
            }
            return victims
        }
        for name in victims { unlink(directory.appendingPathComponent(name + Self.suffix).path) }
    }

    /// The file name (without suffix) of `key`: its SHA-256 in hex, short and safe whatever the URL.
    static func fileName(for key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).hexString
    }
}
