@testable import CourierImage
import Foundation
import Testing

/// Issue #34, item 2: progressive JPEG previews. scripts/pillow-reference cuts two progressive JPEGs (one with EXIF
/// orientation 6) where each scan ends and inside a scan, and writes Pillow's decoding of each cut; a preview of the
/// same bytes shows the same pixels, and the scan tracker a download uses counts the scans each cut completes however
/// the bytes arrive.
@Suite("Images: progressive JPEG previews", .enabled(ImageLibraries.skipMessage) { ImageDecoder.canDecode })
struct ProgressivePreviewTests {
    @Test func theCutsWereWritten() throws {
        let cuts = PillowReference.previewCuts
        try #require(cuts.count >= 10, "scripts/pillow-reference wrote no preview cuts")
        #expect(cuts.allSatisfy { $0.scanStarts.count >= 5 }, "a progressive JPEG of fewer than five scans")
        #expect(cuts.contains { $0.name.contains("orientation") })
    }

    @Test(arguments: PillowReference.previewCuts)
    func aPreviewShowsWhatPillowDecodesFromTheSameBytes(_ cut: PillowReference.PreviewCut) throws {
        let data = try cut.data()
        let preview = try #require(ImageDecoder().decodePreview(data.prefix(cut.cut)), "no preview of \(cut.cut) bytes")
        let reference = try cut.referencePixels()
        try #require(preview.pixels.count == reference.count, "\(preview.size), Pillow's \(reference.count / 4) pixels")
        let comparison = PixelComparison(preview.pixels, reference, width: preview.width)
        // The first scan holds only the blocks' averages (DC), which libjpeg-turbo smooths between blocks; Pillow's
        // wheel carries a newer libjpeg-turbo than Debian's, whose smoothing differs by a few levels there.
        let tolerance = cut.cut == cut.scanStarts.dropFirst().first ? 4 : 2
        #expect(comparison.largest <= tolerance, "\(comparison)")
    }

    /// Each scan adds detail: the previews come closer to the whole image, and the last cut is the image. Bytes
    /// that end inside a marker segment show the scans before it; bytes that end inside a scan, its part too.
    @Test func eachScanBringsThePreviewCloserToTheImage() throws {
        let cuts = PillowReference.previewCuts.filter { $0.file == "preview.jpg" }.sorted { $0.cut < $1.cut }
        let first = try #require(cuts.first)
        let data = try first.data()
        let image = try ImageDecoder().decode(data)
        let distances = try cuts.map { cut in
            let preview = try #require(ImageDecoder().decodePreview(data.prefix(cut.cut)))
            return PixelComparison(preview.pixels, image.pixels, width: image.width).mean
        }
        #expect(distances.first ?? 0 > 1, "the first scan alone already showed the image: \(distances)")
        #expect(distances.last == 0)
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 >= $1 }, "\(distances)")

        let atMarker = try #require(ImageDecoder().decodePreview(data.prefix(first.cut)))
        let insideMarker = try #require(ImageDecoder().decodePreview(data.prefix(first.cut + 3)))
        #expect(insideMarker == atMarker)
        let nextScan = try #require(first.scanStarts.first { $0 > first.cut })
        let insideScan = try #require(ImageDecoder().decodePreview(data.prefix((first.cut + nextScan) / 2)))
        #expect(insideScan.size == image.size)
    }

    @Test func thereIsNoPreviewBeforeTheHeaderOrOfAnotherFormat() throws {
        let data = try #require(try PillowReference.previewCuts.first?.data())
        #expect(ImageDecoder().decodePreview(data.prefix(200)) == nil)
        let png = try PillowReference.entry("png-rgba8").data()
        #expect(ImageDecoder().decodePreview(png) == nil)
    }

    /// The tracker counts a scan once the next one's marker arrives, fed the bytes in chunks of any size.
    @Test(arguments: [1, 7, 100, 1_000, 100_000])
    func theScanTrackerCountsCompletedScansWhateverTheChunks(_ chunk: Int) throws {
        for file in ["preview.jpg", "preview-orientation-6.jpg"] {
            let cut = try #require(PillowReference.previewCuts.first { $0.file == file })
            let data = Array(try cut.data())
            // Two bytes into scan k's SOS marker, k scans are complete.
            let checkpoints = Dictionary(uniqueKeysWithValues: cut.scanStarts.enumerated().dropFirst().map { ($1 + 2, $0) })
            var tracker = JPEGScanTracker()
            var end = 0
            while end < data.count {
                let next = min(end + chunk, data.count)
                for (checkpoint, completed) in checkpoints.sorted(by: { $0.key < $1.key }) where checkpoint > end && checkpoint <= next {
                    _ = data[..<checkpoint].withUnsafeBytes { tracker.advance(over: $0) }
                    #expect(tracker.completedScans == completed, "\(file) at \(checkpoint) in chunks of \(chunk)")
                }
                end = next
                _ = data[..<end].withUnsafeBytes { tracker.advance(over: $0) }
            }
            #expect(tracker.isProgressive && tracker.reachedEnd && !tracker.isMalformed)
            #expect(tracker.completedScans == cut.scanStarts.count)
        }
    }

    @Test func aBaselineJPEGIsNotProgressiveAndGarbageStopsTheTracker() throws {
        var baseline = JPEGScanTracker()
        _ = try Array(PillowReference.entry("jpeg-baseline").data()).withUnsafeBytes { baseline.advance(over: $0) }
        #expect(!baseline.isProgressive && baseline.completedScans == 1 && baseline.reachedEnd)

        var garbage = JPEGScanTracker()
        _ = [UInt8](repeating: 0x41, count: 64).withUnsafeBytes { garbage.advance(over: $0) }
        #expect(garbage.isMalformed)
        // A segment whose length is below its own two bytes.
        var short = JPEGScanTracker()
        _ = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0x00].withUnsafeBytes { short.advance(over: $0) }
        #expect(short.isMalformed)
        // A length past what arrived waits for more, and reads on when it comes.
        var waiting = JPEGScanTracker()
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x01, 0x00]
        _ = bytes.withUnsafeBytes { waiting.advance(over: $0) }
        #expect(!waiting.isMalformed && waiting.completedScans == 0)
        bytes += [UInt8](repeating: 0, count: 254) + [0xFF, 0xC2, 0x00, 0x02, 0xFF, 0xD9]
        _ = bytes.withUnsafeBytes { waiting.advance(over: $0) }
        #expect(waiting.isProgressive && waiting.reachedEnd)
    }
}
