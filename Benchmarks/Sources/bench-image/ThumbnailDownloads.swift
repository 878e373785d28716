import Courier
import CourierImage
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `bench-image download`: COUNT distinct JPEGs (BASE/0.jpg …) through one `ImageDownloader` to SIDE-pixel
/// thumbnails (the DCT-scaled decode, then an aspect-fit resize), all asked for at once as a scrolling list would:
/// the downloader runs `active` at a time and keeps the thumbnails in its default cache (100 MiB of pixels).
enum ThumbnailDownloads {
    static func run(base: URL, certificateAuthority: URL, count: Int, side: Int, active: Int) async throws -> String {
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = Set(try SecurityPolicy.certificates(contentsOf: certificateAuthority))
        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = policy
        let size = ImageSize(width: side, height: side)
        let downloader = ImageDownloader(
            session: URLSessionManager(configuration: configuration),
            decoder: ImageDecoder(options: ImageDecodingOptions(minimumSize: size)),
            maximumActiveDownloads: active
        )
        let resize = ResizeProcessor(size: size, contentMode: .aspectFit)
        let before = ProcessUsage.now()
        let started = ContinuousClock.now
        let pixels = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                let url = base.appendingPathComponent("\(index).jpg")
                group.addTask {
                    let thumbnail = try await downloader.image(from: url, processor: resize)
                    return thumbnail.width * thumbnail.height
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = seconds(ContinuousClock.now - started)
        let after = ProcessUsage.now()
        let cached = downloader.imageCache.map { ($0 as? AutoPurgingImageCache)?.memoryUsage ?? 0 } ?? 0
        downloader.session.invalidateSessionCancelingTasks(true)
        return "{\"images\":\(count),\"seconds\":\(elapsed),\"per_second\":\(Double(count) / elapsed),"
            + "\"cpu_seconds\":\(Double(after.cpuMicroseconds - before.cpuMicroseconds) / 1e6),"
            + "\"peak_resident_bytes\":\(after.peakResidentBytes),\"thumbnail_pixels\":\(pixels),\"cached_bytes\":\(cached)}"
    }
}
