import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

/// Tiny, structurally valid images built byte by byte.
enum TinyImages {
    static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func le32(_ value: UInt32) -> [UInt8] { be32(value).reversed() }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += be32(13) + Array("IHDR".utf8) + be32(width) + be32(height) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
        bytes += be32(2) + Array("IDAT".utf8) + [0x78, 0x9C] + [0, 0, 0, 0]
        bytes += be32(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        return bytes
    }

    static func jpeg(width: UInt16, height: UInt16) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0] + be16(16) + Array("JFIF".utf8) + [0, 1, 1, 0] + be16(1) + be16(1) + [0, 0]
        bytes += [0xFF, 0xC0] + be16(17) + [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        bytes += [0xFF, 0xDA] + be16(12) + [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0] + [0x12, 0x34]
        bytes += [0xFF, 0xD9]
        return bytes
    }

    static func gif(width: UInt16, height: UInt16) -> [UInt8] {
        Array("GIF89a".utf8) + le16(width) + le16(height) + [0, 0, 0]
            + [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0] + [2, 2, 0x4C, 0x01, 0] + [0x3B]
    }

    static func bmp(width: Int32, height: Int32) -> [UInt8] {
        let rowSize = (Int(width) * 3 + 3) / 4 * 4
        let pixels = rowSize * Int(abs(height))
        let fileSize = UInt32(54 + pixels)
        var bytes = Array("BM".utf8) + le32(fileSize) + [0, 0, 0, 0] + le32(54)
        bytes += le32(40) + le32(UInt32(bitPattern: width)) + le32(UInt32(bitPattern: height)) + le16(1) + le16(24)
        bytes += le32(0) + le32(UInt32(pixels)) + le32(2835) + le32(2835) + le32(0) + le32(0)
        return bytes + [UInt8](repeating: 0x7F, count: pixels)
    }

    static func webp(chunk: String, payload: [UInt8]) -> [UInt8] {
        let padded = payload.count % 2 == 0 ? payload : payload + [0]
        let body = Array("WEBP".utf8) + Array(chunk.utf8) + le32(UInt32(payload.count)) + padded
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    static func webpVP8X(width: UInt32, height: UInt32) -> [UInt8] {
        let w = width - 1, h = height - 1
        return webp(chunk: "VP8X", payload: [0, 0, 0, 0] + [UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16)] + [UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16)])
    }

    static func webpVP8L(width: UInt32, height: UInt32) -> [UInt8] {
        let bits = (width - 1) | ((height - 1) << 14)
        return webp(chunk: "VP8L", payload: [0x2F] + le32(bits) + [0, 0])
    }

    static func webpVP8(width: UInt16, height: UInt16) -> [UInt8] {
        webp(chunk: "VP8 ", payload: [0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [0, 0])
    }

    static func tiff(width: UInt16, height: UInt32) -> [UInt8] {
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8) + le16(2)
        bytes += le16(256) + le16(3) + le32(1) + le16(width) + [0, 0]
        bytes += le16(257) + le16(4) + le32(1) + le32(height)
        return bytes + le32(0)
    }

    static func ico(width: UInt8, height: UInt8) -> [UInt8] {
        [0, 0, 1, 0] + le16(1) + [width, height, 0, 0] + le16(1) + le16(32) + le32(4) + le32(22) + [1, 2, 3, 4]
    }
}

@Suite("Image headers and ImageResponseSerializer")
struct ImageResponseSerializerTests {
    typealias Support = SerializationTestSupport

    static let valid: [(String, [UInt8], ImageFormat, Int, Int)] = [
        ("image/png", TinyImages.png(width: 3, height: 2), .png, 3, 2),
        ("image/jpeg", TinyImages.jpeg(width: 640, height: 480), .jpeg, 640, 480),
        ("image/gif", TinyImages.gif(width: 5, height: 7), .gif, 5, 7),
        ("image/bmp", TinyImages.bmp(width: 3, height: -2), .bmp, 3, 2),
        ("image/x-bmp", TinyImages.bmp(width: 1, height: 1), .bmp, 1, 1),
        ("image/webp", TinyImages.webpVP8X(width: 1000, height: 70000), .webp, 1000, 70000),
        ("image/webp", TinyImages.webpVP8L(width: 16383, height: 2), .webp, 16383, 2),
        ("image/webp", TinyImages.webpVP8(width: 300, height: 200), .webp, 300, 200),
        ("image/tiff", TinyImages.tiff(width: 12, height: 34), .tiff, 12, 34),
        ("image/x-icon", TinyImages.ico(width: 0, height: 16), .ico, 256, 16),
    ]

    @Test(arguments: 0..<valid.count)
    func readsFormatAndPixelSize(index: Int) throws {
        let (contentType, bytes, format, width, height) = Self.valid[index]
        let response = try #require(Support.response(contentType: contentType))
        let image = try #require(try ImageResponseSerializer().responseObject(for: response, data: Data(bytes)) as? ReceivedImage)
        #expect(image.format == format)
        #expect(image.pixelWidth == width)
        #expect(image.pixelHeight == height)
        #expect(image.data == Data(bytes))
        #expect(image.scale == 1)
    }

    @Test(arguments: 0..<valid.count)
    func truncatedImagesAreErrors(index: Int) throws {
        let (contentType, bytes, _, _, _) = Self.valid[index]
        let response = try #require(Support.response(contentType: contentType))
        for length in [1, bytes.count / 2, bytes.count - 1] where length < bytes.count {
            let truncated = Data(bytes.prefix(length))
            #expect(throws: ResponseSerializationError.self, "\(contentType) cut to \(length) of \(bytes.count) bytes") {
                try ImageResponseSerializer().responseObject(for: response, data: truncated)
            }
        }
    }

    @Test func corruptImagesAreErrors() throws {
        var zeroWidth = TinyImages.png(width: 0, height: 2)
        #expect(throws: ImageHeaderError.corrupt(.png, "zero width or height")) { try ImageHeader.parse(zeroWidth) }
        zeroWidth = TinyImages.gif(width: 0, height: 1)
        #expect(throws: ImageHeaderError.self) { try ImageHeader.parse(zeroWidth) }
        var noStartCode = TinyImages.webpVP8(width: 3, height: 3)
        noStartCode[23] = 0
        #expect(throws: ImageHeaderError.corrupt(.webp, "missing VP8 start code")) { try ImageHeader.parse(noStartCode) }
        var scanBeforeFrame = TinyImages.jpeg(width: 1, height: 1)
        scanBeforeFrame.removeSubrange(20..<39)
        #expect(throws: ImageHeaderError.self) { try ImageHeader.parse(scanBeforeFrame) }
        #expect(throws: ImageHeaderError.unknownFormat) { try ImageHeader.parse(Array("hello".utf8)) }
        #expect(throws: ImageHeaderError.unknownFormat) { try ImageHeader.parse([]) }
    }

    @Test func unknownBytesAndWrongTypesAreRejected() throws {
        let png = try #require(Support.response(contentType: "image/png"))
        #expect {
            try ImageResponseSerializer().responseObject(for: png, data: Data("<html>".utf8))
        } throws: { error in
            guard case .invalidImage(_, _, let data)? = error as? ResponseSerializationError else { return false }
            return data == Data("<html>".utf8)
        }
        let html = try #require(Support.response(contentType: "text/html"))
        #expect(throws: ResponseSerializationError.self) {
            try ImageResponseSerializer().responseObject(for: html, data: Data(TinyImages.png(width: 1, height: 1)))
        }
        #expect(try ImageResponseSerializer().responseObject(for: png, data: Data()) == nil)
    }

    @Test func acceptableTypesAreAFNetworkingsPlusWebP() {
        #expect(ImageResponseSerializer().acceptableContentTypes == [
            "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon",
            "image/bmp", "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap", "image/webp",
        ])
    }

    @Test func scaleIsRecorded() throws {
        let serializer = ImageResponseSerializer()
        serializer.imageScale = 2
        let response = try #require(Support.response(contentType: "image/gif"))
        let image = try #require(try serializer.responseObject(for: response, data: Data(TinyImages.gif(width: 4, height: 4))) as? ReceivedImage)
        #expect(image.scale == 2)
    }
}
