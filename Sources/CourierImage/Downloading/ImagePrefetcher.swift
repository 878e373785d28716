import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads images ahead of need at ``ImageDownloadPriority/veryLow`` priority, so that they are in the downloader's
/// cache (and the session's HTTP cache) when they are asked for; a prefetch behind the queue never delays an image
/// someone waits for. Asking the downloader for a URL being prefetched joins its download.
public final class ImagePrefetcher: Sendable {
    /// The downloader the prefetches go through.
    public let downloader: ImageDownloader
    private struct Prefetch {
        let generation: UInt64
        var task: Task<Void, Never>?
    }

    private struct State {
        var prefetches: [String: Prefetch] = [:]
        var nextGeneration: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A prefetcher for `downloader`.
    public init(downloader: ImageDownloader) {
        self.downloader = downloader
    }

    /// Prefetches being loaded now.
    public var pendingCount: Int { state.withLock { $0.prefetches.count } }

    /// Starts loading each URL not already cached or being prefetched, after `processor`.
    public func startPrefetching(_ urls: [URL], processor: (any ImageProcessor)? = nil) {
        for url in urls {
            guard let identifier = AutoPurgingImageCache.identifier(for: URLRequest(url: url), processor: processor),
                  downloader.imageCache?.image(withIdentifier: identifier) == nil else { continue }
            let generation: UInt64? = state.withLock { state in
                guard state.prefetches[identifier] == nil else { return nil }
                state.nextGeneration += 1
                state.prefetches[identifier] = Prefetch(generation: state.nextGeneration)
                return state.nextGeneration
            }
            guard let generation else { continue }
            let task = Task { [downloader] in
                _ = try? await downloader.image(from: url, processor: processor, priority: .veryLow)
                self.finished(identifier, generation: generation)
            }
            let kept = state.withLock { state in
                guard state.prefetches[identifier]?.generation == generation else { return false }
                state.prefetches[identifier]?.task = task
                return true
            }
            if !kept { task.cancel() }
        }
    }

    /// Stops the prefetches of these URLs (a download someone else also waits for goes on for them).
    public func stopPrefetching(_ urls: [URL], processor: (any ImageProcessor)? = nil) {
        let stopped = state.withLock { state in
            urls.compactMap { AutoPurgingImageCache.identifier(for: URLRequest(url: $0), processor: processor) }
                .compactMap { state.prefetches.removeValue(forKey: $0)?.task }
        }
        for task in stopped { task.cancel() }
    }

    /// Stops every prefetch.
    public func stopAll() {
        let stopped = state.withLock { state in
            defer { state.prefetches = [:] }
            return state.prefetches.values.compactMap(\.task)
        }
        for task in stopped { task.cancel() }
    }

    private func finished(_ identifier: String, generation: UInt64) {
        state.withLock { state in
            if state.prefetches[identifier]?.generation == generation { state.prefetches[identifier] = nil }
        }
    }
}
