import Courier
import CourierImage
import Foundation
import Testing

/// Issue #34, item 3: every image is untrusted input. Oversized headers are refused before a pixel buffer exists;
/// truncated, corrupt and unknown data is a typed error naming the format and the reason; libjpeg's and libpng's
/// fatal errors come back as errors instead of ending the process.
@Suite("Images: untrusted input", .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct UntrustedImageTests {
    @Test func anImageLargerThanTheLimitIsRefusedFromItsHeader() throws {
        for name in ["jpeg-baseline", "png-rgb8"] {
            let data = try PillowReference.entry(name).data()
            let options = ImageDecodingOptions(maximumPixelCount: 97 * 61 - 1)
            let error = try #require(throws: ImageDecodingError.self) { try ImageDecoder(options: options).decode(data) }
            #expect(error.reason == .tooManyPixels(width: 97, height: 61, limit: 97 * 61 - 1), "\(error)")
            #expect(error.description.contains("97x61 is 5917 pixels, more than the limit of 5916"), "\(error)")
            // At the limit it decodes.
            _ = try ImageDecoder(options: ImageDecodingOptions(maximumPixelCount: 97 * 61)).decode(data)
        }
    }

    /// Headers that promise 100,000 × 100,000 pixels (PNG; 40 GB of RGBA) and 65,000 × 65,000 (JPEG's most) with a
    /// few hundred bytes: refused at once under the default limit of 64 megapixels, before any pixel buffer exists
    /// (the process's peak resident size does not move).
    @Test func aDecompressionBombIsRefusedUnderTheDefaultLimit() throws {
        var png = Array(try PillowReference.entry("png-rgb8").data())
        // IHDR's width and height are bytes 16..<24; its CRC (over type and data) follows at 29.
        png.replaceSubrange(16..<24, with: bigEndian(100_000) + bigEndian(100_000))
        png.replaceSubrange(29..<33, with: bigEndian(crc32(png[12..<29])))
        var jpeg = Array(try PillowReference.entry("jpeg-baseline").data())
        let frame = try #require(startOfFrame(in: jpeg), "no SOF marker")
        jpeg.replaceSubrange((frame + 5)..<(frame + 9), with: [0xFD, 0xE8, 0xFD, 0xE8])
        for (format, data, side) in [(ImageFormat.png, png, 100_000), (.jpeg, jpeg, 65_000)] {
            let started = ContinuousClock.now, peak = peakResidentBytes()
            let error = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(data) }
            #expect(error.format == format)
            #expect(error.reason == .tooManyPixels(width: side, height: side, limit: ImageDecodingOptions.defaultMaximumPixelCount))
            #expect(ContinuousClock.now - started < .seconds(1))
            #expect(peakResidentBytes() - peak < 16 << 20, "the peak resident size grew")
        }
    }

    @Test(arguments: ["jpeg-baseline", "jpeg-progressive", "png-rgba8", "png-interlaced-rgba8", "webp-lossy", "webp-lossless-alpha",
                      "webp-animated", "gif-still", "gif-interlaced"])
    func truncatedDataIsReportedAsTruncated(_ name: String) throws {
        let data = try PillowReference.entry(name).data()
        let format = try #require(ImageFormat(sniffing: data))
        for length in [data.count / 2, data.count * 9 / 10, 20] {
            let error = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(data.prefix(length)) }
            #expect(error.reason == .truncated, "\(name) cut at \(length): \(error)")
            #expect(error.format == format)
            #expect(error.description.hasSuffix("the data ends before the image does"))
        }
    }

    /// An animation's frames count together against the limit (each is a whole canvas): the decode stops before
    /// the frame that would pass it; the first frame alone decodes within it.
    @Test(arguments: ["gif-animated-disposal-1", "webp-animated"])
    func anAnimationsFramesCountTogether(_ name: String) throws {
        let data = try PillowReference.entry(name).data()
        let options = ImageDecodingOptions(maximumPixelCount: 97 * 61 * 3)
        let error = try #require(throws: ImageDecodingError.self) { try ImageDecoder(options: options).decode(data) }
        #expect(error.reason == .tooManyFrames(decoded: 3, width: 97, height: 61, limit: 97 * 61 * 3), "\(error)")
        #expect(error.description.hasSuffix("4 frames of 97x61 are more pixels than the limit of 17751"), "\(error)")
        var firstOnly = options
        firstOnly.decodesFirstFrameOnly = true
        let first = try ImageDecoder(options: firstOnly).decode(data)
        #expect(first.frames.count == 1)
        #expect(first.frames[0] == (try ImageDecoder().decode(data)).frames[0])
    }

    /// A GIF frame declared far larger than its screen (65,535 × 65,535 inside a 97 × 61 screen) is refused before
    /// its rows are read.
    @Test func aGIFFrameLargerThanTheLimitIsRefused() throws {
        var data = Array(try PillowReference.entry("gif-still").data())
        // The image descriptor: 0x2C, left, top, width, height (little-endian).
        let descriptor = try #require(firstImageDescriptor(inGIF: data))
        data.replaceSubrange((descriptor + 5)..<(descriptor + 9), with: [0xFF, 0xFF, 0xFF, 0xFF])
        let error = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(data) }
        #expect(error.format == .gif)
        #expect(error.description.contains("65535x65535"), "\(error)")
    }

    @Test func aDamagedPNGChunkIsCorruptInLibpngsWords() throws {
        let original = Array(try PillowReference.entry("png-rgb8").data())
        // A changed header byte fails the header's CRC; damaged image data fails zlib first.
        var header = original
        header[27] ^= 0x01
        var imageData = original
        let chunk = try #require(imageData.firstRange(of: Array("IDAT".utf8)), "no IDAT")
        imageData[chunk.upperBound + 10] ^= 0x55
        for (data, expected) in [(header, "IHDR: CRC error"), (imageData, "IDAT: ")] {
            let error = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(data) }
            guard case .corrupt(let reason) = error.reason else {
                Issue.record("expected corrupt, got \(error)")
                continue
            }
            #expect(reason.hasPrefix(expected), "\(reason)")
            #expect(error.description.hasPrefix("PNG: the data is corrupt ("))
        }
    }

    @Test func aJPEGWithAnImpossibleFrameIsCorruptInLibjpegsWords() throws {
        var data = Array(try PillowReference.entry("jpeg-baseline").data())
        let frame = try #require(startOfFrame(in: data))
        data[frame + 9] = 0  // no components
        let error = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(data) }
        guard case .corrupt(let reason) = error.reason else {
            Issue.record("expected corrupt, got \(error)")
            return
        }
        #expect(!reason.isEmpty && reason != "no reason given", "\(reason)")
    }

    @Test func unknownFormatsAndCutHeadersAreNamed() throws {
        let text = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(Array("<html>".utf8)) }
        #expect(text.reason == .unrecognizedFormat && text.format == nil)
        // A 1 × 1, 24-bit BMP: a format Courier's header reader knows, named as one this decoder does not decode.
        func littleEndian(_ value: UInt32) -> [UInt8] { bigEndian(value).reversed() }
        let bmp: [UInt8] = Array("BM".utf8) + littleEndian(58) + [0, 0, 0, 0] + littleEndian(54)
            + littleEndian(40) + littleEndian(1) + littleEndian(1) + [1, 0, 24, 0] + littleEndian(0) + littleEndian(4)
            + littleEndian(2835) + littleEndian(2835) + littleEndian(0) + littleEndian(0) + [0, 0, 255, 0]
        let unsupported = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(bmp) }
        #expect(unsupported.format == .bmp && unsupported.reason == .unsupported("decoding BMP"), "\(unsupported)")
        #expect(unsupported.description == "BMP: decoding BMP is not supported")
        let empty = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode([UInt8]()) }
        #expect(empty.reason == .unrecognizedFormat)
        let gif = try #require(throws: ImageDecodingError.self) { try ImageDecoder().decode(Array("GIF89a\u{1}\0\u{1}\0".utf8)) }
        #expect(gif.format == .gif && gif.reason == .truncated)
        #expect(gif.description == "GIF: the data ends before the image does")
    }

    /// Each reference image cut, flipped and overwritten at random 300 times (seeded): every result is an image of
    /// a plausible size or an ``ImageDecodingError``, never a crash. (The fuzz target goes further.)
    @Test(arguments: ["jpeg-baseline", "jpeg-progressive", "jpeg-cmyk", "jpeg-orientation-6", "png-palette8-transparent", "png-interlaced-rgba16",
                      "webp-lossy-alpha", "webp-lossless", "webp-animated", "gif-interlaced", "gif-animated-disposal-3"])
    func damagedImagesNeverCrash(_ name: String) throws {
        let original = Array(try PillowReference.entry(name).data())
        var random = SplitMix64(seed: UInt64(name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        var decoded = 0, refused = 0
        for _ in 0..<300 {
            var data = original
            switch random.next() % 3 {
            case 0: data.removeLast(Int(random.next() % UInt64(data.count)))
            case 1:
                for _ in 0..<(1 + random.next() % 8) { data[Int(random.next() % UInt64(data.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1) }
            default:
                let start = Int(random.next() % UInt64(data.count))
                for index in start..<min(data.count, start + 16) { data[index] = UInt8(truncatingIfNeeded: random.next()) }
            }
            do {
                let image = try ImageDecoder().decode(data)
                #expect(image.pixels.count == image.width * image.height * 4)
                decoded += 1
            } catch {
                refused += 1
            }
        }
        #expect(decoded + refused == 300)
    }
}

/// The offset of a GIF's first image descriptor (0x2C): after the header, the global colour table and any
/// extensions.
func firstImageDescriptor(inGIF gif: [UInt8]) -> Int? {
    guard gif.count > 13 else { return nil }
    var index = 13 + (gif[10] & 0x80 != 0 ? 3 << (Int(gif[10] & 0x07) + 1) : 0)
    while index + 2 < gif.count, gif[index] == 0x21 {
        index += 2
        while index < gif.count, gif[index] != 0 { index += Int(gif[index]) + 1 }
        index += 1
    }
    return index < gif.count && gif[index] == 0x2C ? index : nil
}

/// The offset of a JPEG's baseline or progressive start-of-frame marker (FFC0 or FFC2).
func startOfFrame(in jpeg: [UInt8]) -> Int? {
    jpeg.indices.dropLast().first { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) }
}

/// The process's peak resident size so far (getrusage's `ru_maxrss`, KiB on Linux), in bytes.
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

/// PNG's CRC-32 (ISO 3309), to write a valid chunk around a hostile header.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// A small seeded generator, so that a failing case can be run again.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
