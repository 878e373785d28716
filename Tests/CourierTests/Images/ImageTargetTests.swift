import Courier
import CourierImage
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #34, item 5: `ImageTarget` has `UIImageView+AFNetworking`'s behaviour without UIKit, against nginx: the
/// placeholder at once, a cached image synchronously, the image on the main queue, and a reused target that shows
/// the latest URL's image and never an earlier one's, even when the earlier download finishes last.
@Suite("Images: targets against nginx", .serialized, .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() }, .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct ImageTargetTests {
    /// Records what it was asked to show, and whether on the main thread.
    final class RecordingTarget: ImageTarget {
        let imageTargetState = ImageTargetState()
        /// Each image shown, and whether on the main dispatch queue.
        let shown = Mutex<[(image: Image?, onMain: Bool)]>([])

        func display(_ image: Image?) {
            shown.withLock { $0.append((image, MainQueue.isCurrent)) }
        }

        var images: [Image?] { shown.withLock { $0.map(\.image) } }
    }

    static let placeholder = try? Image(width: 1, height: 1, format: .png, frames: [Image.Frame(pixels: [9, 9, 9, 255])])

    @Test func thePlaceholderAtOnceThenTheImageOnTheMainQueue() async throws {
        let served = try ImageDownloaderTests.ServedImage.write("target-\(UUID().uuidString).png", width: 40, height: 30, seed: 50, slow: false)
        let target = RecordingTarget()
        let downloader = try ImageDownloaderTests.downloader()
        target.setImage(with: URLRequest(url: try NginxInterop.url(served.path)), placeholder: Self.placeholder, downloader: downloader)
        #expect(target.images == [Self.placeholder], "the placeholder is shown before setImage returns")
        #expect(await eventually { target.images.count == 2 })
        let last = try #require(target.shown.withLock { $0.last })
        #expect(last.image?.pixels == served.pixels)
        #expect(last.onMain, "shown on the main queue")
        #expect(!target.imageTargetState.isLoading)

        // Cached now: shown synchronously, with no placeholder first.
        target.setImage(with: URLRequest(url: try NginxInterop.url(served.path)), placeholder: Self.placeholder, downloader: downloader)
        #expect(target.images.count == 3 && target.images.last??.pixels == served.pixels)
    }

    @Test func aReusedTargetShowsOnlyTheLatestImageEvenWhenTheFirstFinishesLast() async throws {
        let slow = try ImageDownloaderTests.ServedImage.write("target-slow-\(UUID().uuidString).png", width: 700, height: 700, seed: 51)
        let fast = try ImageDownloaderTests.ServedImage.write("target-fast-\(UUID().uuidString).png", width: 20, height: 20, seed: 52, slow: false)
        let downloader = try ImageDownloaderTests.downloader()
        let slowURL = try NginxInterop.url(slow.path)
        // Someone else wants the slow image too, so its download runs to the end after the target moves on.
        let other = Task { try await downloader.image(from: slowURL) }
        let target = RecordingTarget()
        target.setImage(with: URLRequest(url: slowURL), placeholder: nil, downloader: downloader)
        #expect(await eventually { downloader.activeDownloadCount == 1 })
        target.setImage(with: URLRequest(url: try NginxInterop.url(fast.path)), placeholder: nil, downloader: downloader)
        #expect(await eventually { target.images.last??.pixels == fast.pixels })
        let finishedLast = try await other.value
        #expect(finishedLast.pixels == slow.pixels)
        // The slow image arrived after the fast one; give the main queue a turn to (wrongly) show it.
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(target.images.allSatisfy { $0 == nil || $0?.pixels == fast.pixels }, "the first URL's image was never shown")
        #expect(target.images.last??.pixels == fast.pixels)
    }

    @Test func aFailureReachesTheFailureBlockAndCancellingShowsNothing() async throws {
        let downloader = try ImageDownloaderTests.downloader()
        let target = RecordingTarget()
        let failed = Atomic<Bool>(false)
        let missing = try NginxInterop.url("no-such-\(UUID().uuidString).png")
        target.setImage(with: URLRequest(url: missing), placeholder: Self.placeholder, downloader: downloader, success: nil) { _, error in
            failed.store((error as? ImageDownloadError) == .unacceptableStatus(404, url: missing), ordering: .relaxed)
        }
        #expect(await eventually { failed.load(ordering: .relaxed) })
        #expect(target.images == [Self.placeholder])

        let slow = try ImageDownloaderTests.ServedImage.write("target-cancel-\(UUID().uuidString).png", width: 700, height: 700, seed: 53)
        target.setImage(with: URLRequest(url: try NginxInterop.url(slow.path)), placeholder: nil, downloader: downloader)
        #expect(await eventually { downloader.activeDownloadCount == 1 })
        target.cancelImageRequest()
        #expect(await eventually { downloader.activeDownloadCount == 0 }, "the target was the download's only caller")
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(target.images == [Self.placeholder, nil])
    }
}
