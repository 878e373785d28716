import Synchronization

/// Decoded images in memory, counted by their pixel bytes (``Image/pixelByteCount``), purged least recently used
/// first once they pass a capacity (AFNetworking's `AFAutoPurgingImageCache`, AlamofireImage's cache of the same
/// name).
///
/// When an addition takes the usage past ``memoryCapacity``, the least recently used images (added or read) are
/// removed until the usage is at most ``preferredMemoryUsageAfterPurge``. Safe to use from any thread.
public final class AutoPurgingImageCache: ImageRequestCache {
    /// The most pixel bytes kept before a purge. Default 100 MiB.
    public let memoryCapacity: Int
    /// What a purge brings the usage down to. Default 60 MiB.
    public let preferredMemoryUsageAfterPurge: Int

    private struct Entry {
        var image: Image
        var cost: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var usage = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A cache of `memoryCapacity` bytes (default 100 MiB) purged down to `preferredMemoryUsageAfterPurge`
    /// (default 60 MiB, at most the capacity).
    public init(memoryCapacity: Int = 100 << 20, preferredMemoryUsageAfterPurge: Int = 60 << 20) {
        self.memoryCapacity = max(memoryCapacity, 0)
        self.preferredMemoryUsageAfterPurge = min(max(preferredMemoryUsageAfterPurge, 0), self.memoryCapacity)
    }

    /// The pixel bytes of the images kept now.
    public var memoryUsage: Int { state.withLock { $0.usage } }

    /// How many images are kept now.
    public var count: Int { state.withLock { $0.entries.count } }

    public func add(_ image: Image, withIdentifier identifier: String) {
        // The images purged are released after the lock: their pixels may be large.
        let purged: [Image] = state.withLock { state in
            state.clock += 1
            let cost = image.pixelByteCount
            if let previous = state.entries.updateValue(Entry(image: image, cost: cost, lastUse: state.clock), forKey: identifier) {
                state.usage -= previous.cost
            }
            state.usage += cost
            guard state.usage > memoryCapacity else { return [] }
            var removed: [Image] = []
            for (key, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.usage > preferredMemoryUsageAfterPurge else { break }
                state.entries[key] = nil
                state.usage -= entry.cost
                removed.append(entry.image)
            }
            return removed
        }
        _ = purged
    }

    public func image(withIdentifier identifier: String) -> Image? {
        state.withLock { state in
            guard var entry = state.entries[identifier] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[identifier] = entry
            return entry.image
        }
    }

    @discardableResult
    public func removeImage(withIdentifier identifier: String) -> Bool {
        let removed = state.withLock { state -> Entry? in
            guard let entry = state.entries.removeValue(forKey: identifier) else { return nil }
            state.usage -= entry.cost
            return entry
        }
        return removed != nil
    }

    public func removeAllImages() {
        let entries = state.withLock { state -> [String: Entry] in
            defer {
                state.entries = [:]
                state.usage = 0
            }
            return state.entries
        }
        _ = entries
    }
}
