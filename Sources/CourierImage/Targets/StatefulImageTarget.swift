import Dispatch
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Anything that shows a different image in each of its states — a button's normal, highlighted and disabled
/// looks, its foreground and background — with the behaviour of AFNetworking's `UIButton+AFNetworking`, without
/// UIKit: ``setImage(for:with:placeholder:processor:downloader:completionQueue:success:failure:)``.
///
/// Each state loads on its own, with ``ImageTarget``'s rules: a new load for a state cancels that state's load in
/// progress (and only that one), a cached image is shown at once, and only a state's latest load shows its image.
public protocol StatefulImageTarget: AnyObject, Sendable {
    /// What tells the images apart: a control state, or a (state, foreground or background) pair.
    associatedtype ImageState: Hashable & Sendable

    /// The target's record of each state's load. Keep one instance for the target's lifetime.
    var imageTargetStates: ImageTargetStates<ImageState> { get }

    /// Shows `image` (`nil`: nothing) for `state`. Called on the completion queue, or synchronously from
    /// `setImage` for the placeholder and a cached image.
    func display(_ image: Image?, for state: ImageState)
}

/// What a ``StatefulImageTarget`` is loading in each of its states.
public final class ImageTargetStates<ImageState: Hashable & Sendable>: Sendable {
    private let loads = Mutex<[ImageState: ImageTargetState]>([:])

    /// No loads.
    public init() {}

    /// The load record of `state` (made on first use).
    public subscript(state: ImageState) -> ImageTargetState {
        loads.withLock { loads in
            if let existing = loads[state] { return existing }
            let made = ImageTargetState()
            loads[state] = made
            return made
        }
    }

    /// Whether a load is in progress for `state`.
    public func isLoading(_ state: ImageState) -> Bool {
        loads.withLock { $0[state] }?.isLoading ?? false
    }
}

extension StatefulImageTarget {
    /// Shows the image `request` loads in `state`, as `setImageForState:withURLRequest:placeholderImage:success:failure:`
    /// does: ``ImageTarget/setImage(with:placeholder:processor:downloader:completionQueue:success:failure:)``'s
    /// rules for that state alone.
    /// - Parameters:
    ///   - state: Which of the target's images this is.
    ///   - request: The image's request.
    ///   - placeholder: Shown at once unless the image is cached. Default `nil` (nothing shown).
    ///   - processor: Applied to the image before it is cached and shown. Default none.
    ///   - downloader: Default ``ImageDownloader/shared``.
    ///   - completionQueue: Where the image is shown and the blocks run. Default the main queue.
    ///   - success: Receives the image instead of ``display(_:for:)``. Default `nil`.
    ///   - failure: Receives an error other than a cancellation. Default `nil`.
    public func setImage(
        for state: ImageState,
        with request: URLRequest,
        placeholder: Image? = nil,
        processor: (any ImageProcessor)? = nil,
        downloader: ImageDownloader = .shared,
        completionQueue: DispatchQueue = .main,
        success: (@Sendable (URLRequest, Image) -> Void)? = nil,
        failure: (@Sendable (URLRequest, any Error) -> Void)? = nil
    ) {
        imageTargetStates[state].load(
            request, placeholder: placeholder, processor: processor, downloader: downloader, completionQueue: completionQueue,
            target: { [weak self] () -> (@Sendable (Image?) -> Void)? in
                guard let self else { return nil }
                return { image in self.display(image, for: state) }
            },
            success: success, failure: failure
        )
    }

    /// Cancels the load in progress for `state`: its image is not shown. Other states' loads go on.
    public func cancelImageRequest(for state: ImageState) {
        imageTargetStates[state].cancel()
    }
}
