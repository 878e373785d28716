import Courier
import CourierImage
import CourierTestServer
import Foundation
import Testing

/// A server decides how long an image body is: `ImageDownloader` reads at most `maximumImageBytes` of it, refusing a
/// longer `Content-Length` before reading and cutting off a longer body as it arrives (against the test server).
@Suite("Images: the downloader's byte limit", .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct ImageDownloaderLimitTests {
    @Test("a body announced or sent longer than the limit fails with tooLarge; one within it decodes")
    func bodiesLongerThanTheLimitAreRefused() async throws {
        let downloader = ImageDownloader(imageCache: nil, maximumImageBytes: 4096)
        let announced = try await Fixtures.url("/bytes/5000")
        let streamed = try await Fixtures.url("/stream-bytes/50000?chunk_size=1000")
        for url in [announced, streamed] {
            await #expect(throws: ImageDownloadError.tooLarge(limit: 4096, url: url)) { try await downloader.image(from: url) }
        }
        let png = try await Fixtures.url("/image/png")
        let image = try await ImageDownloader(imageCache: nil, maximumImageBytes: 1 << 20).image(from: png)
        #expect(image.width > 0)
        // The same image (852 bytes) with a limit below its size.
        let small = ImageDownloader(imageCache: nil, maximumImageBytes: 500)
        await #expect(throws: ImageDownloadError.tooLarge(limit: 500, url: png)) { try await small.image(from: png) }
    }
}
