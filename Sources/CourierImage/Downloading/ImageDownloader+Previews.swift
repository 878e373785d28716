import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImageDownloader {
    /// The largest capacity reserved ahead from a `Content-Length` (the server's word; the body grows past it as it
    /// arrives, if it is longer).
    private static let reservedCapacityLimit = 16 << 20

    /// Downloads with the body streamed, so that a progressive JPEG's previews are made while it arrives: after
    /// each scan that completes, unless a preview is still being made (the next chunk tries again, with every scan
    /// that arrived by then). The last preview is awaited before the image is decoded, so none comes after it.
    func loadPreviewing(_ request: URLRequest, processor: (any ImageProcessor)?, previews: PreviewDelivery) async throws -> Image {
        let (response, body) = try await session.bytes(for: request)
        try check(response, of: request)
        var data = Data()
        if response.expectedContentLength > 0 {
            data.reserveCapacity(Int(min(response.expectedContentLength, Int64(Self.reservedCapacityLimit))))
        }
        var scans = JPEGScanTracker()
        var previewedScans = 0
        var making: Task<Void, Never>?
        for try await chunk in body {
            data.append(chunk)
            _ = data.withUnsafeBytes { scans.advance(over: $0) }
            guard scans.isProgressive, !scans.reachedEnd, scans.completedScans > previewedScans, !previews.isMaking else { continue }
            previewedScans = scans.completedScans
            previews.isMaking = true
            let prefix = data
            making = Task {
                if let preview = await self.preview(of: prefix, processor: processor) { previews.deliver(preview) }
                previews.isMaking = false
            }
        }
        await making?.value
        return try await decoded(data, processor: processor)
    }
}

/// Where a download's previews go, and whether one is being made (one at a time, so they arrive in order).
final class PreviewDelivery: Sendable {
    private let making = Atomic<Bool>(false)
    let deliver: @Sendable (Image) -> Void

    init(_ deliver: @escaping @Sendable (Image) -> Void) {
        self.deliver = deliver
    }

    var isMaking: Bool {
        get { making.load(ordering: .acquiring) }
        set { making.store(newValue, ordering: .releasing) }
    }
}
