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

    /// Downloads with the body streamed, at most ``maximumImageBytes`` of it, so that a progressive JPEG's previews
    /// are made while it arrives: after each scan that completes, unless a preview is still being made (the next chunk
    /// tries again, with every scan that arrived by then). The last preview is awaited before the image is decoded,
    /// so none comes after it.
    func loadPreviewing(_ request: URLRequest, processor: (any ImageProcessor)?, previews: PreviewDelivery) async throws -> Image {
        let (response, body) = try await session.bytes(for: request)
        // A download every caller left (its task cancelled), or one given up early (a status, a length), cancels its
        // request: nothing more is read, and the connection is freed.
        let data = try await withTaskCancellationHandler {
            do {
                return try await receive(body, of: response, request: request, processor: processor, previews: previews)
            } catch {
                body.cancel()
                throw error
            }
        } onCancel: {
            body.cancel()
        }
        return try await decoded(data, processor: processor)
    }

    /// The body, checked against the status and ``maximumImageBytes``, with previews made on the way.
    private func receive(
        _ body: ResponseBodyStream, of response: HTTPURLResponse, request: URLRequest, processor: (any ImageProcessor)?,
        previews: PreviewDelivery
    ) async throws -> Data {
        try check(response, of: request)
        let url = response.url ?? request.url ?? URL(fileURLWithPath: "/")
        // The server's announced length is checked before a byte is read; the bytes it sends, as they arrive.
        guard response.expectedContentLength <= Int64(maximumImageBytes) else {
            throw ImageDownloadError.tooLarge(limit: maximumImageBytes, url: url)
        }
        var data = Data()
        if response.expectedContentLength > 0 {
            data.reserveCapacity(Int(min(response.expectedContentLength, Int64(Self.reservedCapacityLimit))))
        }
        var scans = JPEGScanTracker()
        var previewedScans = 0
        var making: Task<Void, Never>?
        for try await chunk in body {
            guard chunk.count <= maximumImageBytes - data.count else {
                throw ImageDownloadError.tooLarge(limit: maximumImageBytes, url: url)
            }
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
        return data
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
