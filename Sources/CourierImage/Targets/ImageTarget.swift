import Dispatch
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Anything that shows an image — a view model, a renderer, a test — with the behaviour of AFNetworking's
/// `UIImageView+AFNetworking` category, without UIKit: ``setImage(with:placeholder:processor:downloader:completionQueue:success:failure:)``.
///
/// A conforming type keeps one ``ImageTargetState`` (a stored `let`), which remembers the load in progress so that a
/// new one replaces it.
public protocol ImageTarget: AnyObject, Sendable {
    /// The target's record of its current load. Keep one instance for the target's lifetime.
    var imageTargetState: ImageTargetState { get }

    /// Shows `image` (`nil`: nothing). Called on the completion queue, or synchronously from `setImage` for the
    /// placeholder and a cached image.
    func display(_ image: Image?)
}

/// What an ``ImageTarget`` is loading now: a new load cancels the previous one, and only the latest may show its
/// image.
public final class ImageTargetState: Sendable {
    private struct Load {
        let token: UInt64
        let task: Task<Void, Never>?
    }

    private struct State {
        var current: Load?
        var nextToken: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A state with no load.
    public init() {}

    /// Whether a load is in progress.
    public var isLoading: Bool { state.withLock { $0.current?.task != nil } }

    /// Starts a new load (cancelling the one in progress) and returns its token.
    func begin() -> UInt64 {
        let (token, previous) = state.withLock { state in
            state.nextToken += 1
            defer { state.current = Load(token: state.nextToken, task: nil) }
            return (state.nextToken, state.current?.task)
        }
        previous?.cancel()
        return token
    }

    /// Records the task of the load `token`, unless a newer load began meanwhile (then the task is cancelled).
    func attach(_ task: Task<Void, Never>, to token: UInt64) {
        let current = state.withLock { state in
            guard state.current?.token == token else { return false }
            state.current = Load(token: token, task: task)
            return true
        }
        if !current { task.cancel() }
    }

    /// Whether `token` is still the latest load; if so, it ends.
    func finish(_ token: UInt64) -> Bool {
        state.withLock { state in
            guard state.current?.token == token else { return false }
            state.current = nil
            return true
        }
    }

    /// Cancels the load in progress, if any.
    func cancel() {
        let task = state.withLock { state in
            defer { state.current = nil }
            return state.current?.task
        }
        task?.cancel()
    }

    /// One load with `setImageWithURLRequest:placeholderImage:success:failure:`'s rules (see
    /// ``ImageTarget/setImage(with:placeholder:processor:downloader:completionQueue:success:failure:)``), showing
    /// through `display`. The target is held weakly by `display` and `target`: a target gone by the time the image
    /// arrives shows nothing.
    func load(
        _ request: URLRequest, placeholder: Image?, processor: (any ImageProcessor)?, downloader: ImageDownloader,
        completionQueue: DispatchQueue, target: @escaping @Sendable () -> (@Sendable (Image?) -> Void)?,
        success: (@Sendable (URLRequest, Image) -> Void)?, failure: (@Sendable (URLRequest, any Error) -> Void)?
    ) {
        let token = begin()
        if let identifier = AutoPurgingImageCache.identifier(for: request, processor: processor),
           let cached = downloader.imageCache?.image(withIdentifier: identifier) {
            _ = finish(token)
            if let success { success(request, cached) } else { target()?(cached) }
            return
        }
        target()?(placeholder)
        let task = Task {
            let outcome: Result<Image, any Error>
            do {
                outcome = .success(try await downloader.image(for: request, processor: processor))
            } catch is CancellationError {
                return
            } catch {
                outcome = .failure(error)
            }
            // Held only across the hop to the queue; a target gone by now shows nothing.
            guard let display = target() else { return }
            completionQueue.async {
                guard self.finish(token) else { return }
                switch outcome {
                case .success(let image): if let success { success(request, image) } else { display(image) }
                case .failure(let error): failure?(request, error)
                }
            }
        }
        attach(task, to: token)
    }
}

extension ImageTarget {
    /// Shows the image `request` loads, as `setImageWithURLRequest:placeholderImage:success:failure:` does:
    /// - a load already in progress on this target is cancelled (its image is never shown);
    /// - an image in the downloader's cache is shown at once, synchronously (or handed to `success`);
    /// - otherwise `placeholder` is shown at once, and the image when it arrives, on `completionQueue`
    ///   (default the main queue) — unless another `setImage` or ``cancelImageRequest()`` came first.
    ///
    /// With `success`, the image is handed to it instead of ``display(_:)`` (show it yourself); `failure` receives
    /// errors (a cancelled load calls neither).
    /// - Parameters:
    ///   - request: The image's request.
    ///   - placeholder: Shown at once unless the image is cached. Default `nil` (nothing shown).
    ///   - processor: Applied to the image before it is cached and shown. Default none.
    ///   - downloader: Default ``ImageDownloader/shared``.
    ///   - completionQueue: Where the image is shown and the blocks run. Default the main queue.
    ///   - success: Receives the image instead of ``display(_:)``. Default `nil`.
    ///   - failure: Receives an error other than a cancellation. Default `nil`.
    public func setImage(
        with request: URLRequest,
        placeholder: Image? = nil,
        processor: (any ImageProcessor)? = nil,
        downloader: ImageDownloader = .shared,
        completionQueue: DispatchQueue = .main,
        success: (@Sendable (URLRequest, Image) -> Void)? = nil,
        failure: (@Sendable (URLRequest, any Error) -> Void)? = nil
    ) {
        imageTargetState.load(
            request, placeholder: placeholder, processor: processor, downloader: downloader, completionQueue: completionQueue,
            target: { [weak self] () -> (@Sendable (Image?) -> Void)? in
                guard let self else { return nil }
                return { image in self.display(image) }
            },
            success: success, failure: failure
        )
    }

    /// ``setImage(with:placeholder:processor:downloader:completionQueue:success:failure:)`` for a URL.
    public func setImage(with url: URL, placeholder: Image? = nil, processor: (any ImageProcessor)? = nil) {
        setImage(with: URLRequest(url: url), placeholder: placeholder, processor: processor)
    }

    /// Cancels the load in progress: its image is not shown (the download goes on for its other callers).
    public func cancelImageRequest() {
        imageTargetState.cancel()
    }
}
