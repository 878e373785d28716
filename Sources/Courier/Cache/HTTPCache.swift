import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) in memory and, optionally, on disk: what `NSURLCache` was to AFNetworking.
///
/// Sessions with the `.default` configuration and operations share ``shared``; `.ephemeral` sessions get one of their
/// own in memory. `CacheStage` consults it for every request on the wire according to the request's
/// `cachePolicy`: fresh responses are answered from it, stale ones with a validator are revalidated
/// (`If-None-Match`, `If-Modified-Since`), and a `304` refreshes the stored head and serves the stored body.
///
/// Only `GET` responses with a status that is cacheable by default (200, 203, 204, 300, 301, 308, 404, 405, 410,
/// 414, 501) are stored, never with `no-store` (in the request or the response) or `Vary: *`, never a range, and not
/// when the request carries `Authorization` unless the response says `public` or `must-revalidate`. An unsafe
/// request (`POST`, `PUT`, `PATCH`, `DELETE`) answered with a success or a redirect removes the entry for its URL.
/// The body is stored as received (still compressed when it came so); an entry larger than
/// ``maximumEntrySize`` is not stored.
public final class HTTPCache: Sendable {
    private let memory: MemoryCacheStore
    private let disk: DiskCacheStore?
    /// The most bytes of one stored response (head and body).
    public let maximumEntrySize: Int

    private init(memory: MemoryCacheStore, disk: DiskCacheStore?, maximumEntrySize: Int) {
        self.memory = memory
        self.disk = disk
        self.maximumEntrySize = maximumEntrySize
    }

    /// A cache in memory only, as an `.ephemeral` session has.
    /// - Parameters:
    ///   - memoryCapacity: The most bytes held. Default 4 MiB.
    ///   - maximumEntrySize: The most bytes of one entry. Default: a tenth of the capacity.
    public convenience init(memoryCapacity: Int = 4 << 20, maximumEntrySize: Int? = nil) {
        self.init(
            memory: MemoryCacheStore(capacity: memoryCapacity), disk: nil,
            maximumEntrySize: maximumEntrySize ?? memoryCapacity / 10
        )
    }

    /// A cache in memory and in `directory`, which keeps responses between runs (and between processes that share
    /// the directory).
    /// - Parameters:
    ///   - directory: Where the files go (created with mode 0700 when missing).
    ///   - diskCapacity: The most bytes of files. Default 64 MiB.
    ///   - memoryCapacity: The most bytes held in memory. Default 4 MiB.
    ///   - maximumEntrySize: The most bytes of one entry. Default: a tenth of the larger capacity.
    /// - Throws: ``HTTPCacheError`` when the directory cannot be created or read.
    public convenience init(
        directory: URL, diskCapacity: Int = 64 << 20, memoryCapacity: Int = 4 << 20, maximumEntrySize: Int? = nil
    ) throws {
        let largest = maximumEntrySize ?? Swift.max(memoryCapacity, diskCapacity) / 10
        let disk = try DiskCacheStore(directory: directory, capacity: diskCapacity, largestEntry: largest)
        self.init(memory: MemoryCacheStore(capacity: memoryCapacity), disk: disk, maximumEntrySize: largest)
    }

    private static let sharedCache = Mutex<HTTPCache>(HTTPCache())

    /// The cache `.default` sessions and operations use, like `URLCache.shared`. Default: 4 MiB in memory; set one
    /// with a directory to keep responses between runs.
    public static var shared: HTTPCache {
        get { sharedCache.withLock { $0 } }
        set { sharedCache.withLock { $0 = newValue } }
    }

    /// The bytes held in memory now.
    public var currentMemoryUsage: Int { memory.cost }
    /// The bytes of files on disk now (as this process knows them).
    public var currentDiskUsage: Int { disk?.size ?? 0 }

    /// Forgets the stored response for `url`.
    public func removeResponse(for url: URL) {
        let key = Self.key(for: url)
        memory.remove(key)
        disk?.remove(key)
    }

    /// Forgets every stored response, in memory and on disk.
    public func removeAllResponses() {
        memory.removeAll()
        disk?.removeAll()
    }

    // MARK: For the cache stage

    /// The stored response for `url`, whatever its freshness or `Vary`.
    func entry(for url: URL) -> CachedEntry? {
        let key = Self.key(for: url)
        if let entry = memory.entry(for: key) { return entry }
        guard let entry = disk?.entry(for: key) else { return nil }
        memory.store(entry, for: key)
        return entry
    }

    /// Stores `entry` for its URL (replacing what was there), when it is not too large.
    func store(_ entry: CachedEntry) {
        guard entry.cost <= maximumEntrySize, let url = URL(string: entry.url) else { return }
        let key = Self.key(for: url)
        memory.store(entry, for: key)
        disk?.store(entry, for: key)
    }

    /// The storage key of `url`: the URL without its fragment (the disk store names its files by a hash of it).
    static func key(for url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.firstIndex(of: "#") else { return text }
        return String(text[..<hash])
    }
}

/// A cache that could not be set up.
public struct HTTPCacheError: Error, CustomStringConvertible, LocalizedError {
    /// What went wrong.
    public let reason: String
    /// The same as ``reason``.
    public var description: String { reason }
    /// The same as ``reason``.
    public var errorDescription: String? { reason }
}
