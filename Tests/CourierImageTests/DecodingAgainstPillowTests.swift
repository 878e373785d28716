import Courier
import CourierImage
import Foundation
import Testing

/// Issue #34, item 2: images decoded to the pixels Pillow decodes them to (scripts/pillow-reference writes each
/// variant and Pillow's RGBA for it): baseline, progressive, greyscale and CMYK JPEG with each EXIF orientation and
/// each DCT scale; PNG at every bit depth and colour type, with transparency, interlaced; WebP lossy and lossless,
/// with alpha, animated; GIF still, interlaced, transparent, and animated with each disposal method.
@Suite("Images: decoding against Pillow", .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct DecodingAgainstPillowTests {
    @Test func theReferenceImagesWereWritten() throws {
        let entries = try PillowReference.manifest.get()
        #expect(entries.count >= 30)
        // Every family is there, so that a script that wrote fewer cannot pass by testing less.
        for prefix in ["jpeg-orientation-", "jpeg-scaled-", "jpeg-cmyk", "jpeg-progressive", "png-interlaced-", "png-rgb16", "png-palette",
                       "webp-lossy-alpha", "webp-lossless", "webp-animated", "gif-interlaced", "gif-animated-disposal-3"] {
            #expect(entries.contains { $0.name.hasPrefix(prefix) }, "no \(prefix) image")
        }
    }

    @Test(arguments: PillowReference.entries)
    func decodesAsPillowDoes(_ entry: PillowReference.Entry) throws {
        var options = ImageDecodingOptions()
        if let minimum = entry.minimum, minimum.count == 2 {
            options.minimumSize = ImageSize(width: minimum[0], height: minimum[1])
        }
        let image = try ImageDecoder(options: options).decode(try entry.data())
        let format: ImageFormat = switch entry.file.split(separator: ".").last {
        case "jpg": .jpeg
        case "png": .png
        case "webp": .webp
        default: .gif
        }
        #expect(image.format == format)
        #expect(image.size == ImageSize(width: entry.width, height: entry.height), "\(entry.name) \(entry.note)")
        try #require(image.frames.count == entry.frames, "\(entry.name): \(image.frames.count) frames, Pillow \(entry.frames)")
        if let durations = entry.durations {
            #expect(image.frames.map(\.delay) == durations.map { .milliseconds($0) }, "\(entry.name)")
        }
        let reference = try entry.referencePixels()
        let frameBytes = image.width * image.height * Image.bytesPerPixel
        try #require(frameBytes * image.frames.count == reference.count, "\(entry.name): \(frameBytes) bytes a frame, Pillow \(reference.count) in all")
        for (index, frame) in image.frames.enumerated() {
            let theirs = Array(reference[(index * frameBytes)..<((index + 1) * frameBytes)])
            let comparison = PixelComparison(frame.pixels, theirs, width: image.width)
            #expect(comparison.largest <= entry.tolerance, "\(entry.name) \(entry.note), frame \(index): \(comparison)")
        }
    }

    /// The scaled decodes are really smaller: a quarter, an eighth of the pixels, not a resize of a full decode.
    @Test func aThumbnailDecodeUsesTheSmallestCoveringScale() throws {
        let data = try PillowReference.entry("jpeg-scaled-100x60").data()
        let full = try ImageDecoder().decode(data)
        for (minimum, denominator) in [((100, 60), 8), ((200, 120), 4), ((400, 250), 2), ((500, 10), 1), ((1, 300), 1)] {
            let options = ImageDecodingOptions(minimumSize: ImageSize(width: minimum.0, height: minimum.1))
            let scaled = try ImageDecoder(options: options).decode(data)
            #expect(scaled.width == (full.width + denominator - 1) / denominator, "\(minimum)")
            #expect(scaled.height == (full.height + denominator - 1) / denominator, "\(minimum)")
            #expect(scaled.width >= minimum.0 || denominator == 1)
        }
    }

    /// With orientation off, every variant decodes to the stored pixels: the upright reference of orientation 1.
    @Test func orientationCanBeLeftAsStored() throws {
        let upright = try ImageDecoder().decode(try PillowReference.entry("jpeg-orientation-1").data())
        for orientation in 2...8 {
            let options = ImageDecodingOptions(appliesOrientation: false)
            let stored = try ImageDecoder(options: options).decode(try PillowReference.entry("jpeg-orientation-\(orientation)").data())
            #expect(stored.size == upright.size)
            #expect(PixelComparison(stored.pixels, upright.pixels, width: stored.width).largest <= 2, "orientation \(orientation)")
        }
    }
}

/// How far two RGBA buffers of the same size are apart.
struct PixelComparison: CustomStringConvertible {
    var largest = 0
    var total = 0
    var count = 0
    var first: (x: Int, y: Int, ours: [UInt8], theirs: [UInt8])?

    init(_ ours: [UInt8], _ theirs: [UInt8], width: Int) {
        count = min(ours.count, theirs.count)
        for index in 0..<count {
            // A transparent pixel's colour is not shown: Pillow keeps the palette's, CourierImage writes black.
            let pixel = index - index % 4
            if pixel + 3 < count, ours[pixel + 3] == 0, theirs[pixel + 3] == 0 { continue }
            let difference = abs(Int(ours[index]) - Int(theirs[index]))
            total += difference
            if difference > largest {
                largest = difference
                if first == nil || difference > 8 {
                    let pixel = index / 4
                    let start = pixel * 4
                    first = (pixel % width, pixel / width, Array(ours[start..<start + 4]), Array(theirs[start..<start + 4]))
                }
            }
        }
    }

    /// The mean difference over every channel compared.
    var mean: Double { count == 0 ? 0 : Double(total) / Double(count) }

    var description: String {
        let at = first.map { " (e.g. at \($0.x),\($0.y): ours \($0.ours), Pillow's \($0.theirs))" } ?? ""
        return "largest difference \(largest), mean \(String(format: "%.3f", mean))\(at)"
    }
}
