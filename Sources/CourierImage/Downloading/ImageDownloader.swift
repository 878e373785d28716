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
    /// The longest body downloaded, in bytes: a server announcing more fails the download before its body is read,
    /// and one sending more is cut off there, with ``ImageDownloadError/tooLarge(limit:url:)``. Default 64 MiB.
    public let maximumImageBytes: Int

    private let slots: DownloadSlots
    private let pool: NIOThreadPool
    private let state = Mutex(State())

    /// A caller waiting for a download: its answer, and where its previews go when it asked for them.
    private struct Waiter {
        let continuation: CheckedContinuation<Image, any Error>
        let previews: (@Sendable (Image) -> Void)?
    }

    private struct Download {
        let generation: UInt64
        var waiters: [UInt64: Waiter] = [:]
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
    ///   - maximumImageBytes: The longest body downloaded (at least 1). Default 64 MiB.
    public init(
        session: URLSessionManager = URLSessionManager(),
        imageCache: (any ImageRequestCache)? = AutoPurgingImageCache(),
        decoder: ImageDecoder = ImageDecoder(),
        maximumActiveDownloads: Int = 4,
        prioritization: ImageDownloadPrioritization = .fifo,
        maximumImageBytes: Int = 64 << 20
    ) {
        self.maximumImageBytes = max(maximumImageBytes, 1)
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

    /// The image for `url` (see ``image(for:processor:priority:previews:)``).
    public func image(
        from url: URL, processor: (any ImageProcessor)? = nil, priority: ImageDownloadPriority = .normal,
        previews: (@Sendable (Image) -> Void)? = nil
    ) async throws -> Image {
        try await image(for: URLRequest(url: url), processor: processor, priority: priority, previews: previews)
    }

    /// The image `request` loads, decoded and changed by `processor`: from the cache when it is there, else by
    /// joining the same download in flight or starting one.
    /// - Parameters:
    ///   - request: The request; its URL (with `processor`'s identifier) names the download and the cached image.
    ///   - processor: Changes the decoded image (and each preview) before it is cached and returned. Default none.
    ///   - priority: Where the download queues while ``maximumActiveDownloads`` run. Default `.normal`.
    ///   - previews: Called with a preview of a progressive JPEG each time another of its scans has arrived (see
    ///     ``ImageDecoder/decodePreview(_:)``), processed by `processor`, on a thread of the decoding pool, one at a
    ///     time, never after this call returns. A download streams its body to make previews when one of the
    ///     callers waiting for it as it starts (when it gets its slot) asked for them; a caller that joins a
    ///     download already under way gets the previews made after it joined, if any. Other formats, and a cached
    ///     image, give none. Default `nil`.
    /// - Throws: `CancellationError` when the calling task is cancelled (the download goes on for its other
    ///   callers); ``ImageDownloadError``; ``ImageDecodingError``; the transport's errors.
    public func image(
        for request: URLRequest, processor: (any ImageProcessor)? = nil, priority: ImageDownloadPriority = .normal,
        previews: (@Sendable (Image) -> Void)? = nil
    ) async throws -> Image {
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
                    let waiter = Waiter(continuation: continuation, previews: previews)
                    join(identifier, caller: caller, waiter: waiter, request: request, processor: processor, priority: priority)
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
        _ identifier: String, caller: UInt64, waiter: Waiter,
        request: URLRequest, processor: (any ImageProcessor)?, priority: ImageDownloadPriority
    ) {
        enum Action { case joined, cancelled, start(UInt64) }
        let action: Action = state.withLock { state in
            if state.cancelledEarly.remove(caller) != nil { return .cancelled }
            if state.downloads[identifier] != nil {
                state.downloads[identifier]?.waiters[caller] = waiter
                return .joined
            }
            state.nextID += 1
            var download = Download(generation: state.nextID)
            download.waiters[caller] = waiter
            state.downloads[identifier] = download
            return .start(download.generation)
        }
        switch action {
        case .joined: return
        case .cancelled: waiter.continuation.resume(throwing: CancellationError())
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
        let (waiter, task): (Waiter?, Task<Void, Never>?) = state.withLock { state in
            guard let waiter = state.downloads[identifier]?.waiters.removeValue(forKey: caller) else {
                state.cancelledEarly.insert(caller)
                return (nil, nil)
            }
            guard state.downloads[identifier]?.waiters.isEmpty == true else { return (waiter, nil) }
            return (waiter, state.downloads.removeValue(forKey: identifier)?.task)
        }
        waiter?.continuation.resume(throwing: CancellationError())
        task?.cancel()
    }

    private func run(_ identifier: String, generation: UInt64, request: URLRequest, processor: (any ImageProcessor)?, priority: ImageDownloadPriority) async {
        let result: Result<Image, any Error>
        do {
            try await slots.acquire(priority: priority)
            defer { slots.release() }
            let previewing = state.withLock { state in
                state.downloads[identifier]?.waiters.values.contains { $0.previews != nil } ?? false
            }
            if previewing {
                let previews = PreviewDelivery { [weak self] preview in self?.deliver(preview, for: identifier, generation: generation) }
                result = .success(try await loadPreviewing(request, processor: processor, previews: previews))
            } else {
                result = .success(try await load(request, processor: processor))
            }
        } catch {
            result = .failure(error)
        }
        if case .success(let image) = result { imageCache?.add(image, withIdentifier: identifier) }
        let waiters = state.withLock { state -> [Waiter] in
            guard state.downloads[identifier]?.generation == generation else { return [] }
            return Array(state.downloads.removeValue(forKey: identifier)?.waiters.values ?? [:].values)
        }
        for waiter in waiters { waiter.continuation.resume(with: result) }
    }

    /// Hands a preview to the callers of the download that asked for previews (outside the lock).
    private func deliver(_ preview: Image, for identifier: String, generation: UInt64) {
        let handlers = state.withLock { state -> [@Sendable (Image) -> Void] in
            guard let download = state.downloads[identifier], download.generation == generation else { return [] }
            return download.waiters.values.compactMap(\.previews)
        }
        for handler in handlers { handler(preview) }
    }

    /// Downloads as a data task (seen in the session's `tasks`, with its progress), at most ``maximumImageBytes`` of
    /// it, then decodes and processes on the thread pool.
    private func load(_ request: URLRequest, processor: (any ImageProcessor)?) async throws -> Image {
        let task = session.dataTask(with: request, completionHandler: nil)
        task.maximumResponseDataSize = Int64(maximumImageBytes)
        let data: Data
        let response: HTTPURLResponse
        do {
            data = try await task.value
            response = try await task.completedResponse
        } catch let error as URLError where error.code == .dataLengthExceedsMaximum {
            throw ImageDownloadError.tooLarge(limit: maximumImageBytes, url: request.url ?? URL(fileURLWithPath: "/"))
        }
        try check(response, of: request)
        return try await decoded(data, processor: processor)
    }

    /// Decodes and processes `data` on the thread pool.
    func decoded(_ data: Data, processor: (any ImageProcessor)?) async throws -> Image {
        try Task.checkCancellation()
        let decoder = self.decoder
        return try await pool.runIfActive {
            let image = try decoder.decode(data)
            return processor?.process(image) ?? image
        }
    }

    /// A preview of `data` (see ``ImageDecoder/decodePreview(_:)``), processed, made on the thread pool.
    func preview(of data: Data, processor: (any ImageProcessor)?) async -> Image? {
        let decoder = self.decoder
        let preview = try? await pool.runIfActive { decoder.decodePreview(data).map { processor?.process($0) ?? $0 } }
        return preview ?? nil
    }

    /// Fails a download whose answer is not a success.
    func check(_ response: HTTPURLResponse, of request: URLRequest) throws {
        guard (200..<300).contains(response.statusCode) else {
            throw ImageDownloadError.unacceptableStatus(response.statusCode, url: response.url ?? request.url ?? URL(fileURLWithPath: "/"))
        }
    }
}
