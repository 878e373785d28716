import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cache: memory and disk stores")
struct CacheStoreTests {
    static func entry(_ path: String, bodySize: Int = 100, fill: UInt8 = 0x61) -> CachedEntry {
        CachedEntry(
            url: "https://example.org/\(path)", statusCode: 200, httpVersion: "HTTP/2.0",
            headerFields: [.init(name: "ETag", value: "\"\(path)\""), .init(name: "Cache-Control", value: "max-age=60")],
            selectingHeaders: ["accept-language": "fr", "accept": nil],
            requestTime: Date(timeIntervalSince1970: 1_800_000_000.5), responseTime: Date(timeIntervalSince1970: 1_800_000_001.25),
            body: Data(repeating: fill, count: bodySize)
        )
    }

    @Test func entriesSurviveAReopenedDiskCacheWhole() throws {
        let folder = try Fixtures.temporaryDirectory("http-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = Self.entry("a", bodySize: 5000)
        try HTTPCache(directory: folder).store(original)
        let reopened = try HTTPCache(directory: folder)
        #expect(reopened.entry(for: URL(string: original.url)!) == original)
        #expect(reopened.currentDiskUsage > 5000)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.count == 1 && names[0].hasSuffix(".entry"))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(names[0]).path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600)
    }

    /// An entry file replaced by a link to a 2 GiB file, or by a 2 GiB file itself (sparse: no disk is used), is
    /// refused from its descriptor's size before a byte is read: it was once read whole (2.1 GB resident) first.
    @Test(arguments: ["link", "large", "link to a link"])
    func anEntryTheStoreCouldNotHaveWrittenIsNeverRead(replacement: String) throws {
        let folder = try Fixtures.temporaryDirectory("http-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let huge = folder.deletingLastPathComponent().appendingPathComponent("courier-tests-huge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: huge) }
        let original = Self.entry("huge", bodySize: 4000)
        let cache = try HTTPCache(directory: folder, diskCapacity: 3 << 30, memoryCapacity: 0)
        cache.store(original)
        let file = folder.appendingPathComponent(try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first))
        #expect(cache.entry(for: URL(string: original.url)!) == original)

        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        try FileManager.default.removeItem(at: file)
        switch replacement {
        case "link":
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: huge)
        case "link to a link":
            let middle = folder.deletingLastPathComponent().appendingPathComponent("courier-tests-middle-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: middle) }
            try FileManager.default.createSymbolicLink(at: middle, withDestinationURL: huge)
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: middle)
        default:
            try FileManager.default.moveItem(at: huge, to: file)
        }

        let before = ProcessStats.residentBytes()
        // Within the 3 GiB capacity by size, but larger than any entry of at most 300 MiB (the default tenth).
        #expect(cache.entry(for: URL(string: original.url)!) == nil)
        #expect(try HTTPCache(directory: folder, diskCapacity: 3 << 30, memoryCapacity: 0).entry(for: URL(string: original.url)!) == nil)
        #expect(ProcessStats.residentBytes() - before < 64 << 20, "nothing of the 2 GiB file was read")
    }

    @Test(arguments: ["torn", "flipped", "garbage", "empty"])
    func aDamagedFileIsDiscardedNeverServed(damage: String) throws {
        let folder = try Fixtures.temporaryDirectory("http-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = Self.entry("b", bodySize: 3000)
        try HTTPCache(directory: folder).store(original)
        let file = folder.appendingPathComponent(try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first))
        var bytes = try Data(contentsOf: file)
        switch damage {
        case "torn": bytes = bytes.prefix(bytes.count / 2)
        case "flipped": bytes[bytes.count / 2] ^= 0x01
        case "garbage": bytes = Data("not a cache entry".utf8)
        default: bytes = Data()
        }
        try bytes.write(to: file)
        let reopened = try HTTPCache(directory: folder)
        #expect(reopened.entry(for: URL(string: original.url)!) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path), "a damaged entry is deleted")
    }

    @Test func theLeastRecentlyUsedGoFirstInMemoryAndOnDisk() throws {
        let folder = try Fixtures.temporaryDirectory("http-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Room for about three entries of 1 KB in each store.
        let cache = try HTTPCache(directory: folder, diskCapacity: 3_600, memoryCapacity: 3_600, maximumEntrySize: 2_000)
        let urls = (0..<4).map { URL(string: "https://example.org/\($0)")! }
        for index in 0..<3 { cache.store(Self.entry("\(index)", bodySize: 1000)) }
        _ = cache.entry(for: urls[0])  // 0 is now the most recently used; 1 is the oldest
        cache.store(Self.entry("3", bodySize: 1000))
        #expect(cache.entry(for: urls[1]) == nil)
        #expect(cache.entry(for: urls[0]) != nil && cache.entry(for: urls[3]) != nil)
        #expect(cache.currentMemoryUsage <= 3_600 && cache.currentDiskUsage <= 3_600)
        let reopened = try HTTPCache(directory: folder, diskCapacity: 3_600)
        #expect(reopened.entry(for: urls[1]) == nil, "evicted from disk too")
        // Larger than the largest entry: not stored at all.
        cache.store(Self.entry("big", bodySize: 5000))
        #expect(cache.entry(for: URL(string: "https://example.org/big")!) == nil)
    }

    @Test func concurrentReadersAndWritersOnlyEverSeeWholeEntries() async throws {
        let folder = try Fixtures.temporaryDirectory("http-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try HTTPCache(directory: folder, memoryCapacity: 0)
        let reader = try HTTPCache(directory: folder, memoryCapacity: 0)
        let url = URL(string: "https://example.org/shared")!
        await withTaskGroup(of: Bool.self) { group in
            for round in 0..<200 {
                group.addTask { writer.store(Self.entry("shared", bodySize: 20_000, fill: UInt8(round % 250))); return true }
                group.addTask {
                    // A second process's view: each entry read is one of the written ones, never a mix.
                    guard let seen = try? HTTPCache(directory: folder, memoryCapacity: 0).entry(for: url) ?? reader.entry(for: url) else { return true }
                    return Set(seen.body).count == 1 && seen.body.count == 20_000
                }
            }
            for await whole in group { #expect(whole) }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(PrivateFile.temporaryPrefix) }
        #expect(leftovers.isEmpty)
    }
}
