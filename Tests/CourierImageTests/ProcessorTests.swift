import Courier
import CourierImage
import Foundation
import Testing

/// Issue #34, item 2: resize, crop, aspect-fit and aspect-fill processors in Swift. Area averaging is checked
/// against Pillow's box filter (exact for whole factors), the geometry of each content mode by its sizes, and
/// premultiplied averaging by a transparent edge.
@Suite("Images: processors", .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct ProcessorTests {
    @Test func theResizeReferencesWereWritten() {
        #expect(PillowReference.resizes.count == 4)
    }

    @Test(arguments: PillowReference.resizes)
    func shrinkingAveragesAsPillowsBoxFilter(_ entry: PillowReference.Entry) throws {
        let size = try #require(entry.resize.map { ImageSize(width: $0[0], height: $0[1]) })
        let image = ResizeProcessor(size: size, contentMode: .fill).process(try ImageDecoder().decode(try entry.data()))
        #expect(image.size == size)
        let comparison = PixelComparison(image.pixels, try entry.referencePixels(), width: image.width)
        #expect(comparison.largest <= entry.tolerance, "\(entry.name): \(comparison)")
    }

    @Test func eachContentModeGivesItsGeometry() throws {
        let image = try ImageDecoder().decode(try PillowReference.entry("png-rgb8").data())  // 97 × 61
        let square = ImageSize(width: 50, height: 50)
        #expect(ResizeProcessor(size: square, contentMode: .aspectFit).process(image).size == ImageSize(width: 50, height: 31))
        #expect(ResizeProcessor(size: square, contentMode: .aspectFill).process(image).size == square)
        #expect(ResizeProcessor(size: square, contentMode: .fill).process(image).size == square)
        // Never larger unless asked: a small image keeps its size (aspect fill still crops to the target's ratio).
        let large = ImageSize(width: 400, height: 400)
        #expect(ResizeProcessor(size: large, contentMode: .aspectFit).process(image).size == image.size)
        #expect(ResizeProcessor(size: large, contentMode: .aspectFill).process(image).size == ImageSize(width: 61, height: 61))
        #expect(ResizeProcessor(size: large, contentMode: .aspectFit, allowsUpscaling: true).process(image).size == ImageSize(width: 400, height: 252))
        // Aspect fill keeps the centre: the middle column of the result is the middle column of the scaled image.
        let filled = ResizeProcessor(size: ImageSize(width: 20, height: 61), contentMode: .aspectFill).process(image)
        let middle = CropProcessor(x: 38, y: 0, size: ImageSize(width: 20, height: 61)).process(image)
        #expect(filled.pixels == middle.pixels)
    }

    @Test func croppingCopiesTheRectangleAndClipsToTheImage() throws {
        let image = try ImageDecoder().decode(try PillowReference.entry("png-rgba8").data())
        let cropped = CropProcessor(x: 10, y: 5, size: ImageSize(width: 30, height: 20)).process(image)
        #expect(cropped.size == ImageSize(width: 30, height: 20))
        for (x, y) in [(0, 0), (29, 19), (13, 7)] {
            #expect(cropped.pixel(x: x, y: y) == image.pixel(x: x + 10, y: y + 5))
        }
        #expect(CropProcessor(x: 90, y: 50, size: ImageSize(width: 30, height: 30)).process(image).size == ImageSize(width: 7, height: 11))
        #expect(CropProcessor(x: 200, y: 0, size: ImageSize(width: 5, height: 5)).process(image) == image)
        #expect(CropProcessor(x: .max, y: .max, size: ImageSize(width: .max, height: .max)).process(image) == image)
    }

    /// A transparent red pixel beside an opaque blue one averages to half-transparent blue, not purple: the average
    /// is taken in premultiplied alpha.
    @Test func transparentPixelsDoNotBleedTheirColour() throws {
        let pixels: [UInt8] = [255, 0, 0, 0, 0, 0, 255, 255]
        let image = try Image(width: 2, height: 1, format: .png, frames: [Image.Frame(pixels: pixels)])
        let shrunk = ResizeProcessor(size: ImageSize(width: 1, height: 1), contentMode: .fill).process(image)
        #expect(shrunk.pixel(x: 0, y: 0) == RGBA(red: 0, green: 0, blue: 255, alpha: 128))
    }

    @Test func growingInterpolatesBetweenPixelCentres() throws {
        let pixels: [UInt8] = [0, 0, 0, 255, 200, 100, 40, 255]
        let image = try Image(width: 2, height: 1, format: .png, frames: [Image.Frame(pixels: pixels)])
        let grown = ResizeProcessor(size: ImageSize(width: 4, height: 1), contentMode: .fill, allowsUpscaling: true).process(image)
        #expect(grown.size == ImageSize(width: 4, height: 1))
        #expect(grown.pixel(x: 0, y: 0) == RGBA(red: 0, green: 0, blue: 0))
        #expect(grown.pixel(x: 1, y: 0) == RGBA(red: 50, green: 25, blue: 10))
        #expect(grown.pixel(x: 2, y: 0) == RGBA(red: 150, green: 75, blue: 30))
        #expect(grown.pixel(x: 3, y: 0) == RGBA(red: 200, green: 100, blue: 40))
    }

    @Test func everyFrameOfAnAnimationIsProcessedAndKeepsItsDelay() throws {
        let animation = try ImageDecoder().decode(try PillowReference.entry("gif-animated-disposal-1").data())
        let resized = ResizeProcessor(size: ImageSize(width: 40, height: 40)).process(animation)
        #expect(resized.frames.count == animation.frames.count)
        #expect(resized.frames.map(\.delay) == animation.frames.map(\.delay))
        #expect(resized.frames.allSatisfy { $0.pixels.count == 40 * 40 * 4 })
        #expect(ResizeProcessor(size: ImageSize(width: 40, height: 40)).identifier == "resize(40x40,aspectFill)")
        #expect(CropProcessor(x: 1, y: 2, size: ImageSize(width: 3, height: 4)).identifier == "crop(1,2,3x4)")
    }
}
