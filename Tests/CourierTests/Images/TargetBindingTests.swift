import Courier
import CourierImage
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #34, item 5: the rest of AFNetworking's UIKit categories without UIKit, against nginx:
/// `UIButton+AFNetworking` (an image per state, each state's load on its own), `UIProgressView+AFNetworking` (a
/// task's or an operation's progress drives a target) and `UIActivityIndicatorView+AFNetworking` (a task's or an operation's state
/// drives a target).
@Suite("Images: button states, progress and activity targets against nginx", .serialized, .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() })
struct TargetBindingTests {
    enum ButtonState: Hashable, Sendable { case normal, highlighted }

    /// A button's images, recorded per state with the queue each was shown on.
    final class RecordingButton: StatefulImageTarget {
        let imageTargetStates = ImageTargetStates<ButtonState>()
        let shown = Mutex<[(state: ButtonState, image: Image?, onMain: Bool)]>([])

        func display(_ image: Image?, for state: ButtonState) {
            shown.withLock { $0.append((state, image, MainQueue.isCurrent)) }
        }

        func images(for state: ButtonState) -> [Image?] { shown.withLock { $0.filter { $0.state == state }.map(\.image) } }
    }

    /// Values a binding showed, and whether each came on the main queue.
    final class Recording<Value: Sendable>: ProgressTarget, ActivityTarget {
        let values = Mutex<[(value: Value, onMain: Bool)]>([])
        var shown: [Value] { values.withLock { $0.map(\.value) } }

        func record(_ value: Value) { values.withLock { $0.append((value, MainQueue.isCurrent)) } }
        func display(progress fraction: Double) { if let value = fraction as? Value { record(value) } }
        func display(isActive: Bool) { if let value = isActive as? Value { record(value) } }
    }

    @Test(.enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
    func eachStateLoadsOnItsOwnAndShowsOnlyItsLatestImage() async throws {
        let slow = try ImageDownloaderTests.ServedImage.write("button-slow-\(UUID().uuidString).png", width: 700, height: 700, seed: 60)
        let pressed = try ImageDownloaderTests.ServedImage.write("button-pressed-\(UUID().uuidString).png", width: 20, height: 20, seed: 61, slow: false)
        let normal = try ImageDownloaderTests.ServedImage.write("button-normal-\(UUID().uuidString).png", width: 24, height: 16, seed: 62, slow: false)
        let downloader = try ImageDownloaderTests.downloader()
        let button = RecordingButton()
        button.setImage(for: .normal, with: URLRequest(url: try NginxInterop.url(slow.path)), downloader: downloader)
        #expect(await eventually { downloader.activeDownloadCount == 1 })
        button.setImage(for: .highlighted, with: URLRequest(url: try NginxInterop.url(pressed.path)), downloader: downloader)
        #expect(await eventually { button.images(for: .highlighted).last??.pixels == pressed.pixels })
        #expect(button.imageTargetStates.isLoading(.normal), "the other state's load does not cancel the normal one")

        // A new load for .normal replaces the slow one; .highlighted keeps its image.
        button.setImage(for: .normal, with: URLRequest(url: try NginxInterop.url(normal.path)), downloader: downloader)
        #expect(await eventually { button.images(for: .normal).last??.pixels == normal.pixels })
        #expect(await eventually { downloader.activeDownloadCount == 0 }, "the slow download, left by its only caller, was cancelled")
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(button.images(for: .normal).allSatisfy { $0 == nil || $0?.pixels == normal.pixels }, "the slow image was never shown")
        #expect(button.images(for: .highlighted).compactMap { $0 }.count == 1)
        #expect(button.shown.withLock { $0.filter { $0.image != nil }.allSatisfy(\.onMain) })

        // Cached: shown at once for any state.
        button.setImage(for: .highlighted, with: URLRequest(url: try NginxInterop.url(normal.path)), downloader: downloader)
        #expect(button.images(for: .highlighted).last??.pixels == normal.pixels)
    }

    @Test func aTasksDownloadProgressDrivesAProgressTarget() async throws {
        let served = try ImageDownloaderTests.ServedImage.write("progress-\(UUID().uuidString).png", width: 700, height: 700, seed: 63)
        let session = try NginxInterop.sessionManager()
        let done = AsyncStream.makeStream(of: Void.self)
        let task = session.dataTask(with: URLRequest(url: try NginxInterop.url(served.path))) { _, _, _ in done.continuation.finish() }
        let bar = Recording<Double>()
        let activity = Recording<Bool>()
        bar.bindProgress(of: task)
        activity.bindActivity(to: task)
        task.resume()
        for await _ in done.stream {}
        #expect(await eventually { bar.shown.last == 1 && activity.shown.last == false })
        let fractions = bar.shown
        #expect(fractions.count >= 3, "\(served.size) bytes at 1 MiB/s: \(fractions)")
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 < $1 }, "\(fractions)")
        #expect(bar.values.withLock { $0.allSatisfy(\.onMain) })
        #expect(activity.shown == [false, true, false], "created, resumed, completed: \(activity.shown)")
    }

    @Test func suspendingATaskStopsTheActivityAndCancellingTheBindingStopsTheUpdates() async throws {
        let served = try ImageDownloaderTests.ServedImage.write("activity-\(UUID().uuidString).png", width: 700, height: 700, seed: 64)
        let session = try NginxInterop.sessionManager()
        let done = AsyncStream.makeStream(of: Void.self)
        let task = session.dataTask(with: URLRequest(url: try NginxInterop.url(served.path))) { _, _, _ in done.continuation.finish() }
        let spinner = Recording<Bool>()
        spinner.bindActivity(to: task)
        task.resume()
        #expect(await eventually { spinner.shown == [false, true] })
        task.suspend()
        #expect(await eventually { spinner.shown == [false, true, false] })
        let bar = Recording<Double>()
        let binding = bar.bindProgress(of: task)
        binding.cancel()
        #expect(binding.isCancelled)
        task.resume()
        for await _ in done.stream {}
        #expect(await eventually { spinner.shown == [false, true, false, true, false] })
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(bar.shown.isEmpty, "a cancelled binding showed \(bar.shown)")
    }

    @Test func anOperationsDownloadProgressDrivesAProgressTarget() async throws {
        let served = try ImageDownloaderTests.ServedImage.write("operation-progress-\(UUID().uuidString).png", width: 700, height: 700, seed: 65)
        let operation = HTTPRequestOperation(request: URLRequest(url: try NginxInterop.url(served.path)))
        operation.securityPolicy = try NginxInterop.policy()
        let blockCalls = Atomic<Int>(0)
        operation.setDownloadProgressBlock { _, _, _ in blockCalls.add(1, ordering: .relaxed) }
        let bar = Recording<Double>()
        bar.bindProgress(of: operation)
        let queue = OperationQueue()
        queue.addOperation(operation)
        await withCheckedContinuation { continuation in queue.addBarrierBlock { continuation.resume() } }
        #expect(operation.error == nil)
        #expect(await eventually { bar.shown.last == 1 })
        let fractions = bar.shown
        #expect(fractions.count >= 3, "\(served.size) bytes at 1 MiB/s: \(fractions)")
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 < $1 }, "\(fractions)")
        #expect(bar.values.withLock { $0.allSatisfy(\.onMain) })
        #expect(await eventually { blockCalls.load(ordering: .relaxed) >= fractions.count }, "the operation's own block still runs")
    }

    @Test func anOperationsStateDrivesAnActivityTarget() async throws {
        let operation = HTTPRequestOperation(request: URLRequest(url: try NginxInterop.url("hello.txt")))
        operation.securityPolicy = try NginxInterop.policy()
        let spinner = Recording<Bool>()
        spinner.bindActivity(to: operation)
        let queue = OperationQueue()
        queue.addOperation(operation)
        await withCheckedContinuation { continuation in
            queue.addBarrierBlock { continuation.resume() }
        }
        #expect(await eventually { spinner.shown == [false, true, false] }, "\(spinner.shown)")
    }
}
