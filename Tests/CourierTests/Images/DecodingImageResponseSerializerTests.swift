import Courier
import CourierImage
import Foundation
import Synchronization
import Testing

/// Issue #34, item 6: `DecodingImageResponseSerializer` (AFNetworking's `automaticallyInflatesResponseImage`) gives
/// decoded pixels to both façades, against nginx serving a Pillow-written PNG.
@Suite("Images: the decoding response serializer against nginx", .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() }, .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct DecodingImageResponseSerializerTests {
    @Test func aSessionManagerGetsDecodedPixels() async throws {
        let served = try ImageDownloaderTests.ServedImage.write("serializer-\(UUID().uuidString).png", width: 33, height: 21, seed: 60, slow: false)
        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = try NginxInterop.policy()
        let manager = HTTPSessionManager(baseURL: try NginxInterop.url(""), configuration: configuration)
        defer { manager.invalidateSessionCancelingTasks(true) }
        let serializer = DecodingImageResponseSerializer()
        serializer.imageScale = 2
        manager.responseSerializer = serializer
        let (object, response) = try await manager.get(served.path)
        #expect(response.statusCode == 200)
        let decoded = try #require(object as? DecodedResponseImage, "\(String(describing: object))")
        #expect(decoded.image.size == ImageSize(width: 33, height: 21) && decoded.image.pixels == served.pixels)
        #expect(decoded.scale == 2)

        // Without inflation: the header only, as ImageResponseSerializer gives it.
        serializer.automaticallyInflatesResponseImage = false
        let (plain, _) = try await manager.get(served.path)
        #expect((plain as? ReceivedImage)?.pixelWidth == 33)
    }

    @Test func anOperationGetsDecodedPixelsAndItsCopyKeepsTheSettings() async throws {
        let served = try ImageDownloaderTests.ServedImage.write("serializer-op-\(UUID().uuidString).png", width: 12, height: 9, seed: 61, slow: false)
        let manager = HTTPRequestOperationManager(baseURL: try NginxInterop.url(""))
        manager.securityPolicy = try NginxInterop.policy()
        let serializer = DecodingImageResponseSerializer()
        serializer.decoder = ImageDecoder(options: ImageDecodingOptions(maximumPixelCount: 100))
        let copy = try #require(serializer.copy() as? DecodingImageResponseSerializer)
        #expect(copy.decoder.options.maximumPixelCount == 100)
        serializer.decoder = ImageDecoder()
        manager.responseSerializer = serializer
        let decoded: DecodedResponseImage? = try await withCheckedThrowingContinuation { continuation in
            _ = manager.GET(served.path, parameters: nil, success: { _, object in
                continuation.resume(returning: object as? DecodedResponseImage)
            }, failure: { _, error in
                continuation.resume(throwing: error)
            })
        }
        let decodedImage = try #require(decoded)
        #expect(decodedImage.image.pixels == served.pixels)

        // A decoding error reaches the failure block (the limit is checked before any pixel is allocated).
        serializer.decoder = ImageDecoder(options: ImageDecodingOptions(maximumPixelCount: 100))
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            _ = manager.GET(served.path, parameters: nil, success: { _, _ in continuation.resume(returning: nil) },
                            failure: { _, error in continuation.resume(returning: error) })
        }
        #expect((failure as? ImageDecodingError)?.reason == .tooManyPixels(width: 12, height: 9, limit: 100), "\(String(describing: failure))")
    }
}
