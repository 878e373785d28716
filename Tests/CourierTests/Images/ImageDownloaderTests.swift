import Courier
import CourierImage
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #34, item 4: `ImageDownloader` against nginx serving PNGs of random pixels written by Pillow
/// (scripts/pillow-reference noise) under /slow/, which nginx sends at 1 MiB/s, so that downloads overlap: identical
/// requests share one download and one decode, each caller cancels only its own wait, at most N downloads run and
/// the rest start by priority, then in or against the order asked; the cache answers without a request.
@Suite("Images: the downloader against nginx", .serialized, .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() }, .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct ImageDownloaderTests {
    /// A served PNG of random pixels and Pillow's RGBA for it.
    struct ServedImage {
        let path: String
        let size: Int
        let pixels: [UInt8]

        /// Writes `name` (width × height random pixels, under /slow/ unless `slow` is off) into nginx's root: a PNG, or
        /// with `kind` "progressive" a progressive JPEG of noise over a gradient.
        static func write(_ name: String, width: Int, height: Int, seed: Int, slow: Bool = true, kind: String = "noise") throws -> ServedImage {
            let root = try #require(NginxInterop.root)
            let path = (slow ? "slow/" : "") + name
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let script = ExternalServers.scripts + "/pillow-reference"
            let process = try Process.run(URL(fileURLWithPath: script), arguments: [kind, file.path, "\(width)", "\(height)", "\(seed)"])
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "scripts/pillow-reference \(kind) failed")
            let pixels = Array(try Data(contentsOf: URL(fileURLWithPath: file.path + ".rgba")))
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
            return ServedImage(path: path, size: size, pixels: pixels)
        }
    }

    /// Counts how often it runs: once per decode of the downloads it is given to.
    final class CountingProcessor: ImageProcessor {
        let runs = Atomic<Int>(0)
        var identifier: String { "counting" }
        func process(_ image: Image) -> Image {
            runs.add(1, ordering: .relaxed)
            return image
        }
    }

    /// The order in which downloads finished.
    /// Records the files in the order their requests start: a slot granted starts the session's exchange, which
    /// adapts the request first. (The order callers are answered in is not it: a download's slot is free once it is
    /// decoded, so the next download may finish before the previous caller's task runs again.)
    final class StartOrder: RequestInterceptor {
        let files = Mutex<[String]>([])

        func adapt(_ request: URLRequest, for attempt: RequestAttempt) async throws -> URLRequest {
            if let file = request.url?.lastPathComponent { files.withLock { $0.append(file) } }
            return request
        }
    }

    static func downloader(
        maximumActiveDownloads: Int = 4, prioritization: ImageDownloadPrioritization = .fifo, interceptors: [any RequestInterceptor] = []
    ) throws -> ImageDownloader {
        let session = try NginxInterop.sessionManager { $0.interceptors = interceptors }
        return ImageDownloader(session: session, maximumActiveDownloads: maximumActiveDownloads, prioritization: prioritization)
    }

    @Test func identicalRequestsShareOneDownloadAndOneDecode() async throws {
        let served = try ServedImage.write("shared-\(UUID().uuidString).png", width: 700, height: 700, seed: 1)
        let downloader = try Self.downloader()
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url(served.path, probe: probe)
        let processor = CountingProcessor()
        let images = try await withThrowingTaskGroup(of: Image.self) { group in
            for _ in 0..<50 { group.addTask { try await downloader.image(from: url, processor: processor) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(images.count == 50)
        #expect(images.allSatisfy { $0.pixels == served.pixels && $0.size == ImageSize(width: 700, height: 700) })
        #expect(processor.runs.load(ordering: .relaxed) == 1, "one decode and one processing for fifty callers")
        let lines = try await NginxInterop.settledAccessLog(probe: probe, count: 1)
        #expect(lines.first?.bytesSent ?? 0 >= Int64(served.size))
    }

    @Test func eachCallerCancelsOnlyItsOwnWait() async throws {
        let served = try ServedImage.write("cancel-\(UUID().uuidString).png", width: 700, height: 700, seed: 2)
        let downloader = try Self.downloader()
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url(served.path, probe: probe)
        let callers = (0..<50).map { _ in Task { try await downloader.image(from: url) } }
        #expect(await eventually { (downloader.session.tasks.first?.countOfBytesReceived ?? 0) > 0 })
        for caller in callers.dropLast() { caller.cancel() }
        for caller in callers.dropLast() {
            await #expect(throws: CancellationError.self) { try await caller.value }
        }
        #expect(downloader.activeDownloadCount == 1, "49 of 50 callers left: the download goes on")
        let image = try await callers[49].value
        #expect(image.pixels == served.pixels)
        let line = try #require(try await NginxInterop.settledAccessLog(probe: probe, count: 1).first)
        #expect(line.bytesSent >= Int64(served.size), "the download went on for the caller left: \(line)")
    }

    @Test func theDownloadStopsWhenEveryCallerHasCancelled() async throws {
        let served = try ServedImage.write("abandon-\(UUID().uuidString).png", width: 1000, height: 1000, seed: 3)  // ~3 s at 1 MiB/s
        let downloader = try Self.downloader()
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url(served.path, probe: probe)
        let callers = (0..<50).map { _ in Task { try await downloader.image(from: url) } }
        // Under way: the body is arriving.
        #expect(await eventually { (downloader.session.tasks.first?.countOfBytesReceived ?? 0) > 0 })
        let cancelled = ContinuousClock.now
        for caller in callers { caller.cancel() }
        for caller in callers {
            await #expect(throws: CancellationError.self) { try await caller.value }
        }
        #expect(await eventually { downloader.activeDownloadCount == 0 && downloader.session.tasks.isEmpty })
        #expect(ContinuousClock.now - cancelled < .seconds(2), "the session's task was cancelled, it did not run to its end")
        // nginx logs the reset stream once the connection closes: it had not sent the whole file.
        downloader.session.invalidateSessionCancelingTasks(true)
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.bytesSent < Int64(served.size), "nginx sent the whole file: \(line)")
    }

    @Test func atMostTheLimitOfDownloadsRunAtOnce() async throws {
        let images = try (0..<4).map { try ServedImage.write("limit-\($0)-\(UUID().uuidString).png", width: 400, height: 400, seed: 10 + $0) }
        let downloader = try Self.downloader(maximumActiveDownloads: 2)
        let urls = try images.map { try NginxInterop.url($0.path) }
        let sampling = sampleMaximum(every: .milliseconds(5)) { downloader.activeDownloadCount }
        let results = try await withThrowingTaskGroup(of: (Int, Image).self) { group in
            for (index, url) in urls.enumerated() { group.addTask { (index, try await downloader.image(from: url)) } }
            return try await group.reduce(into: [Int: Image]()) { $0[$1.0] = $1.1 }
        }
        sampling.cancel()
        #expect(await sampling.value == 2, "the downloads ran two at a time")
        for (index, served) in images.enumerated() { #expect(results[index]?.pixels == served.pixels) }
        #expect(downloader.activeDownloadCount == 0 && downloader.queuedDownloadCount == 0)
    }

    @Test(arguments: [ImageDownloadPrioritization.fifo, .lifo])
    func queuedDownloadsStartByPriorityThenInTheirOrder(_ prioritization: ImageDownloadPrioritization) async throws {
        let first = try ServedImage.write("order-first-\(UUID().uuidString).png", width: 600, height: 600, seed: 20)
        let queued = try (0..<3).map { try ServedImage.write("order-\($0)-\(UUID().uuidString).png", width: 20, height: 20, seed: 21 + $0, slow: false) }
        let started = StartOrder()
        let downloader = try Self.downloader(maximumActiveDownloads: 1, prioritization: prioritization, interceptors: [started])
        let running = Task { _ = try await downloader.image(from: try NginxInterop.url(first.path)) }
        #expect(await eventually { downloader.activeDownloadCount == 1 })
        var tasks: [Task<Void, any Error>] = []
        var names: [String: String] = [URL(fileURLWithPath: first.path).lastPathComponent: "A"]
        for (name, served, priority) in [("B", queued[0], ImageDownloadPriority.normal), ("C", queued[1], .normal), ("D", queued[2], .high)] {
            let url = try NginxInterop.url(served.path)
            names[url.lastPathComponent] = name
            tasks.append(Task { _ = try await downloader.image(from: url, priority: priority) })
            let queuedSoFar = tasks.count
            #expect(await eventually { downloader.queuedDownloadCount == queuedSoFar })
        }
        try await running.value
        for task in tasks { try await task.value }
        let order = started.files.withLock { $0 }.map { names[$0] ?? $0 }
        #expect(order == (prioritization == .fifo ? ["A", "D", "B", "C"] : ["A", "D", "C", "B"]))
    }

    @Test func aCachedImageIsReturnedWithoutARequest() async throws {
        let served = try ServedImage.write("cached-\(UUID().uuidString).png", width: 64, height: 48, seed: 30, slow: false)
        let cache = AutoPurgingImageCache()
        let downloader = ImageDownloader(session: try NginxInterop.sessionManager(), imageCache: cache)
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url(served.path, probe: probe)
        let first = try await downloader.image(from: url)
        let again = try await downloader.image(from: url)
        #expect(first == again)
        _ = try await NginxInterop.settledAccessLog(probe: probe, count: 1)
        #expect(cache.memoryUsage == 64 * 48 * 4)
        // Another processor is another image: downloaded again, kept beside the first.
        let resized = try await downloader.image(from: url, processor: ResizeProcessor(size: ImageSize(width: 32, height: 24)))
        #expect(resized.size == ImageSize(width: 32, height: 24))
        #expect(cache.count == 2)
    }

    @Test func failuresReachEveryCaller() async throws {
        let downloader = try Self.downloader()
        let missing = try NginxInterop.url("no-such-image-\(UUID().uuidString).png")
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<2 { group.addTask { do { _ = try await downloader.image(from: missing); return nil } catch { return error } } }
            return await group.reduce(into: [any Error]()) { if let error = $1 { $0.append(error) } }
        }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { ($0 as? ImageDownloadError) == .unacceptableStatus(404, url: missing) }, "\(errors)")
        let text = try NginxInterop.url("hello.txt")
        let error = try #require(await #expect(throws: ImageDecodingError.self) { try await downloader.image(from: text) })
        #expect(error.reason == .unrecognizedFormat)
    }

    /// Issue #34, item 2: a progressive JPEG's previews while it arrives (nginx sends it at 1 MiB/s), each sharper
    /// than the last, all before the image; a caller without a handler shares the download and gets the image only.
    @Test func previewsOfAProgressiveJPEGArriveWhileItDownloads() async throws {
        let served = try ServedImage.write("progressive-\(UUID().uuidString).jpg", width: 1200, height: 800, seed: 50, kind: "progressive")
        let downloader = try Self.downloader()
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url(served.path, probe: probe)
        let previews = PreviewLog()
        let previewing = Task {
            let image = try await downloader.image(from: url) { preview in previews.add(preview) }
            previews.close()
            return image
        }
        #expect(await eventually { downloader.activeDownloadCount == 1 })
        let other = try await downloader.image(from: url)
        let image = try await previewing.value
        _ = try await NginxInterop.settledAccessLog(probe: probe, count: 1)

        #expect(image == other)
        let comparison = Self.difference(image.pixels, served.pixels)
        #expect(image.pixels.count == served.pixels.count && comparison.largest <= 2, "Pillow's pixels differ by \(comparison.largest)")
        let shown = previews.images.withLock { $0 }
        try #require(shown.count >= 2, "\(shown.count) previews of a \(served.size)-byte progressive JPEG sent at 1 MiB/s")
        #expect(shown.allSatisfy { $0.size == image.size })
        let distances = shown.map { Self.difference($0.pixels, image.pixels).total }
        #expect(distances.allSatisfy { $0 > 0 }, "a preview was the image itself")
        #expect(distances.first! > distances.last!, "the previews did not sharpen: \(distances)")
        #expect(previews.lateCount.load(ordering: .relaxed) == 0, "a preview came after the image")

        // A PNG gives no previews.
        let png = try ServedImage.write("not-progressive-\(UUID().uuidString).png", width: 40, height: 30, seed: 51, slow: false)
        let none = PreviewLog()
        _ = try await downloader.image(from: try NginxInterop.url(png.path)) { none.add($0) }
        #expect(none.images.withLock { $0.isEmpty })
    }

    /// The largest and the summed difference of two pixel buffers, channel by channel (a loop over the buffers:
    /// generic sequence code is slow in a debug build).
    static func difference(_ ours: [UInt8], _ theirs: [UInt8]) -> (largest: Int, total: Int) {
        ours.withUnsafeBufferPointer { ours in
            theirs.withUnsafeBufferPointer { theirs in
                var largest = 0
                var total = 0
                for index in 0..<min(ours.count, theirs.count) {
                    let difference = abs(Int(ours[index]) - Int(theirs[index]))
                    total &+= difference
                    largest = max(largest, difference)
                }
                return (largest, total)
            }
        }
    }

    /// The previews a download delivered, and how many came after the caller had its image.
    final class PreviewLog: Sendable {
        let images = Mutex<[Image]>([])
        let closed = Atomic<Bool>(false)
        let lateCount = Atomic<Int>(0)

        func add(_ image: Image) {
            if closed.load(ordering: .acquiring) { lateCount.add(1, ordering: .relaxed) }
            images.withLock { $0.append(image) }
        }

        func close() { closed.store(true, ordering: .releasing) }
    }

    @Test func prefetchedImagesAreCachedAtLowPriority() async throws {
        let images = try (0..<2).map { try ServedImage.write("prefetch-\($0)-\(UUID().uuidString).png", width: 30, height: 20, seed: 40 + $0, slow: false) }
        let downloader = try Self.downloader()
        let prefetcher = ImagePrefetcher(downloader: downloader)
        let probe = NginxInterop.probe()
        let urls = try images.map { try NginxInterop.url($0.path, probe: probe) }
        prefetcher.startPrefetching(urls)
        #expect(await eventually { prefetcher.pendingCount == 0 })
        for (url, served) in zip(urls, images) {
            #expect(try await downloader.image(from: url).pixels == served.pixels)
        }
        _ = try await NginxInterop.settledAccessLog(probe: probe, count: 2)
    }
}

/// `AutoPurgingImageCache`'s accounting and its least-recently-used purge (no server needed).
@Suite("Images: the auto-purging cache")
struct AutoPurgingImageCacheTests {
    static func image(side: Int, shade: UInt8) throws -> Image {
        try Image(width: side, height: side, format: .png, frames: [Image.Frame(pixels: [UInt8](repeating: shade, count: side * side * 4))])
    }

    @Test func aPurgeRemovesTheLeastRecentlyUsedDownToThePreferredUsage() throws {
        // Each image is 10 × 10 × 4 = 400 bytes; the capacity holds five, a purge leaves at most three.
        let cache = AutoPurgingImageCache(memoryCapacity: 2_000, preferredMemoryUsageAfterPurge: 1_200)
        for index in 0..<5 { cache.add(try Self.image(side: 10, shade: UInt8(index)), withIdentifier: "\(index)") }
        #expect(cache.memoryUsage == 2_000 && cache.count == 5)
        _ = cache.image(withIdentifier: "0")  // used: now the most recent
        cache.add(try Self.image(side: 10, shade: 9), withIdentifier: "5")
        #expect(cache.memoryUsage == 1_200 && cache.count == 3)
        #expect(cache.image(withIdentifier: "0") != nil && cache.image(withIdentifier: "5") != nil && cache.image(withIdentifier: "4") != nil)
        #expect(cache.image(withIdentifier: "1") == nil && cache.image(withIdentifier: "3") == nil)
    }

    /// A thousand images of different sizes through a 1 MiB cache: the usage never passes the capacity, and what
    /// stays is the most recently used.
    @Test func theCostLimitHoldsOverAThousandImages() throws {
        let cache = AutoPurgingImageCache(memoryCapacity: 1 << 20, preferredMemoryUsageAfterPurge: 768 << 10)
        var added: [String] = []
        for index in 0..<1_000 {
            let side = 16 + index % 48
            cache.add(try Self.image(side: side, shade: UInt8(index % 256)), withIdentifier: "\(index)")
            added.append("\(index)")
            #expect(cache.memoryUsage <= 1 << 20)
        }
        #expect(cache.image(withIdentifier: "999") != nil && cache.image(withIdentifier: "998") != nil)
        #expect(cache.image(withIdentifier: "0") == nil)
        // The kept images are a run of the latest added (nothing older survives a newer one's removal).
        let kept = added.filter { cache.image(withIdentifier: $0) != nil }.compactMap(Int.init)
        #expect(kept == Array((kept.first ?? 0)...999))
    }

    @Test func replacingAndRemovingKeepTheUsageRight() throws {
        let cache = AutoPurgingImageCache()
        cache.add(try Self.image(side: 10, shade: 1), withIdentifier: "a")
        cache.add(try Self.image(side: 20, shade: 2), withIdentifier: "a")
        #expect(cache.memoryUsage == 1_600 && cache.count == 1)
        #expect(cache.removeImage(withIdentifier: "a") && !cache.removeImage(withIdentifier: "a"))
        #expect(cache.memoryUsage == 0)
        cache.add(try Self.image(side: 10, shade: 1), withIdentifier: "b")
        cache.removeAllImages()
        #expect(cache.memoryUsage == 0 && cache.count == 0)
        let request = URLRequest(url: URL(string: "https://example.com/a.png")!)
        #expect(AutoPurgingImageCache.identifier(for: request, processor: nil) == "https://example.com/a.png")
        #expect(AutoPurgingImageCache.identifier(for: request, processor: CropProcessor(x: 0, y: 0, size: ImageSize(width: 1, height: 1)))
                == "https://example.com/a.png#crop(0,0,1x1)")
    }
}

/// Why the image suites are skipped on a machine without the system's image libraries (CourierImage then builds
/// without them: see Package.swift); `.ci/run` fails when it sees these words.
enum ImageLibraries {
    static let skipMessage = Comment(rawValue: "CourierImage was built without the system's image libraries: apt-get install libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev, then touch Package.swift")
}
