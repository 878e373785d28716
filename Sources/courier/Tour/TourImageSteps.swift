import Courier
import CourierImage
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The image step: CourierImage's `ImageDownloader` (AFNetworking's `AFImageDownloader`) against the test server's
/// sample PNG: five callers share one request, and the image is decoded to pixels and made a thumbnail.
extension Tour {
    func images(_ log: TourLog) async throws -> String {
        guard ImageDecoder.canDecode else {
            return "skipped: \(ImageDecoder.unavailableReason ?? "this build cannot decode images")"
        }
        let downloader = ImageDownloader(session: URLSessionManager(configuration: .ephemeral))
        defer { downloader.session.invalidateSessionCancelingTasks(true) }
        let url = try url("/image/png")
        let thumbnail = ResizeProcessor(size: ImageSize(width: 8, height: 8))
        let before = servers.plain.requestLog.count
        let thumbnails = try await withThrowingTaskGroup(of: Image.self) { group in
            for _ in 0..<5 { group.addTask { try await downloader.image(from: url, processor: thumbnail) } }
            return try await group.reduce(into: [Image]()) { $0.append($1) }
        }
        let requests = servers.plain.requestLog.requests.dropFirst(before).filter { $0.path == "/image/png" }.count
        guard requests == 1, let first = thumbnails.first, thumbnails.allSatisfy({ $0 == first }) else {
            throw TourStepFailure("5 callers made \(requests) requests")
        }
        log.note("5 callers of /image/png with the same processor → \(requests) request, one decode")
        let original = try await downloader.image(from: url)
        guard first.size == ImageSize(width: 8, height: 8), let corner = first.pixel(x: first.width - 1, y: 0) else {
            throw TourStepFailure("the thumbnail is \(first.size)")
        }
        return "\(original.format.name) \(original.size) decoded to RGBA, thumbnail \(first.size), top-right pixel \(corner)"
    }
}
