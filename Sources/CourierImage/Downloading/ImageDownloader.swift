import Courier
import Foundation
import NIOPosix
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads, decodes, processes and caches images (AFNetworking's `AFImageDownloader`).
///
/// - **Through a Courier session**: the HTTP cache (originals on disk when the session's `HTTPCache` has a
///   directory, honouring their `Cache-Control`), cookies, retries, interceptors and tracing all apply.
/// - **Coalescing**: callers asking for the same URL with the same processor while it is in flight share one
///   download and one decode. Each caller can cancel its own wait (cancel its task); the download is cancelled only
///   when every caller has.
/// - **At most ``maximumActiveDownloads`` at a time** (default 4); the rest wait by ``ImageDownloadPriority``, then
///   first in first out or last in first out (``ImageDownloadPrioritization``).
/// - **Decoding off the caller and off the event loops**, on SwiftNIO's shared thread pool (one thread a core), with
///   the ``ImageDecoder``'s limits.
/// - **A cache of decoded images** (``AutoPurgingImageCache`` by default): a cached image is returned at once, with no
///   request.
public final class ImageDownloader: Sendable {
    /// The session the requests go through. Default a session of its own with `SessionConfiguration.default`.
    public let session: URLSessionManager
    /// The decoded images, or `nil` for none. Default an ``AutoPurgingImageCache`` of 100 MiB.
    public let imageCache: (any ImageRequestCache)?
    /// How images are decoded (pixel limit, orientation, first frame only).
    public let decoder: ImageDecoder
    /// The most downloads at a time. Default 4.
    public let maximumActiveDownloads: Int

    private let slots: DownloadSlots
    private let pool: NIOThreadPool
    private let state = Mutex(State())

    private struct Download {
        let generation: UInt64
        var waiters: [UInt64: CheckedContinuation<Image, any Error>] = [:]
        var task: Task<Void, Never>?
    }

    private struct State {
        var downloads: [String: Download] = [:]
        var nextID: UInt64 = 0
        /// Callers cancelled before they joined (their cancellation handler ran first).
        var cancelledEarly: Set<UInt64> = []
    }

    /// A downloader.
    /// - Parameters:
    ///   - session: The session requests go through. Default a new `URLSessionManager()`.
    ///   - imageCache: Where decoded images are kept. Default `AutoPurgingImageCache()`.
    ///   - decoder: How images are decoded. Default `ImageDecoder()`.
    ///   - maximumActiveDownloads: The most downloads at a time (at least 1). Default 4.
    ///   - prioritization: The order of queued downloads of the same priority. Default `.fifo`.
    public init(
        session: URLSessionManager = URLSessionManager(),
        imageCache: (any ImageRequestCache)? = AutoPurgingImageCache(),
        decoder: ImageDecoder = ImageDecoder(),
        maximumActiveDownloads: Int = 4,
        prioritization: ImageDownloadPrioritization = .fifo
    ) {
        self.session = session
        self.imageCache = imageCache
        self.decoder = decoder
        self.maximumActiveDownloads = max(maximumActiveDownloads, 1)
        self.slots = DownloadSlots(limit: self.maximumActiveDownloads, prioritization: prioritization)
        self.pool = NIOThreadPool.singleton
    }

    /// The downloader ``ImageTarget``s use unless given another: a session of its own, a 100 MiB cache, four
    /// downloads at a time.
    public static let shared = ImageDownloader()

    /// Downloads running now.
    public var activeDownloadCount: Int { slots.active }
    /// Downloads waiting for a slot.
    public var queuedDownloadCount: Int { slots.waiting }

    /// The image for `url` (see ``image(for:processor:priority:)``).
    public func image(from url: URL, processor: (any ImageProcessor)? = nil, priority: ImageDownloadPriority = .normal) async throws -> Image {
        try await image(for: URLRequest(url: url), processor: processor, priority: priority)
    }

    /// The image `request` loads, decoded and changed by `processor`: from the cache when it is there, else by
    /// joining the same download in flight or starting one.
    /// - Throws: `CancellationError` when the calling task is cancelled (the download goes on for its other
    ///   callers); ``ImageDownloadError``; ``ImageDecodingError``; the transport's errors.
    public func image(for request: URLRequest, processor: (any ImageProcessor)? = nil, priority: ImageDownloadPriority = .normal) async throws -> Image {
        guard let identifier = AutoPurgingImageCache.identifier(for: request, processor: processor) else {
            throw ImageDownloadError.missingURL
        }
        if let cached = imageCache?.image(withIdentifier: identifier) { return cached }
        let caller = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        do {
            let image = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Image, any Error>) in
                    join(identifier, caller: caller, continuation: continuation, request: request, processor: processor, priority: priority)
                }
            } onCancel: {
                leave(identifier, caller: caller)
            }
            forget(caller)
            return image
        } catch {
            forget(caller)
            throw error
        }
    }

    /// A cancellation that came after the caller's download finished left its mark; the handler cannot run again.
    private func forget(_ caller: UInt64) {
        state.withLock { _ = $0.cancelledEarly.remove(caller) }
    }

    /// Adds the caller to the download in flight for `identifier`, or starts one.
    private func join(
        _ identifier: String, caller: UInt64, continuation: CheckedContinuation<Image, any Error>,
        request: URLRequest, processor: (any ImageProcessor)?, priority: ImageDownloadPriority
    ) {
        enum Action { case joined, cancelled, start(UInt64) }
        let action: Action = state.withLock { state in
            if state.cancelledEarly.remove(caller) != nil { return .cancelled }
            if state.downloads[identifier] != nil {
                state.downloads[identifier]?.waiters[caller] = continuation
                return .joined
            }
            state.nextID += 1
            var download = Download(generation: state.nextID)
            download.waiters[caller] = continuation
            state.downloads[identifier] = download
            return .start(download.generation)
        }
        switch action {
        case .joined: return
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .start(let generation):
            let task = Task {
                await self.run(identifier, generation: generation, request: request, processor: processor, priority: priority)
            }
            // The last caller may have left between the two locks: then nobody wants the download.
            let wanted = state.withLock { state in
                guard state.downloads[identifier]?.generation == generation else { return false }
                state.downloads[identifier]?.task = task
                return true
            }
            if !wanted { task.cancel() }
        }
    }

    /// Removes a cancelled caller; the download is cancelled when it was the last.
    private func leave(_ identifier: String, caller: UInt64) {
        let (continuation, task): (CheckedContinuation<Image, any Error>?, Task<Void, Never>?) = state.withLock { state in
            guard let continuation = state.downloads[identifier]?.waiters.removeValue(forKey: caller) else {
                state.cancelledEarly.insert(caller)
                return (nil, nil)
            }
            guard state.downloads[identifier]?.waiters.isEmpty == true else { return (continuation, nil) }
            return (continuation, state.downloads.removeValue(forKey: identifier)?.task)
        }
        continuation?.resume(throwing: CancellationError())
        task?.cancel()
    }

    private func run(_ identifier: String, generation: UInt64, request: URLRequest, processor: (any ImageProcessor)?, priority: ImageDownloadPriority) async {
        let result: Result<Image, any Error>
        do {
            try await slots.acquire(priority: priority)
            defer { slots.release() }
            result = .success(try await load(request, processor: processor))
        } catch {
            result = .failure(error)
        }
        if case .success(let image) = result { imageCache?.add(image, withIdentifier: identifier) }
        let waiters = state.withLock { state -> [CheckedContinuation<Image, any Error>] in
            guard state.downloads[identifier]?.generation == generation else { return [] }
            return Array(state.downloads.removeValue(forKey: identifier)?.waiters.values ?? [:].values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Downloads, then decodes and processes on the thread pool.
    private func load(_ request: URLRequest, processor: (any ImageProcessor)?) async throws -> Image {
        let (data, response) = try await session.data(for: request)
        guard (200..<300).contains(response.statusCode) else {
            throw ImageDownloadError.unacceptableStatus(response.statusCode, url: response.url ?? request.url ?? URL(fileURLWithPath: "/"))
        }
        try Task.checkCancellation()
        let decoder = self.decoder
        return try await pool.runIfActive {
            let image = try decoder.decode(data)
            return processor?.process(image) ?? image
        }
    }
}
