/// Resampling of RGBA pixels, one axis at a time: area averaging to shrink, bilinear interpolation to grow.
/// Hand-written: Linux has no maintained Swift image-processing package (vImage and Core Image are Apple's).
enum PixelResampler {
    /// `pixels` of `source` size resampled to `target` size.
    static func resample(_ pixels: [UInt8], from source: ImageSize, to target: ImageSize) -> [UInt8] {
        // Premultiplied floats, so that a transparent pixel's colour does not bleed into its neighbours.
        var values = [Float](repeating: 0, count: pixels.count)
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Float(pixels[offset + 3]) / 255
            values[offset] = Float(pixels[offset]) * alpha
            values[offset + 1] = Float(pixels[offset + 1]) * alpha
            values[offset + 2] = Float(pixels[offset + 2]) * alpha
            values[offset + 3] = Float(pixels[offset + 3])
        }
        let horizontal = resampleRows(values, width: source.width, height: source.height, to: target.width)
        let both = resampleColumns(horizontal, width: target.width, height: source.height, to: target.height)
        var result = [UInt8](repeating: 0, count: target.width * target.height * 4)
        for offset in stride(from: 0, to: result.count, by: 4) {
            let alpha = both[offset + 3]
            guard alpha > 0.5 else { continue }
            let scale = 255 / alpha
            result[offset] = clamp(both[offset] * scale)
            result[offset + 1] = clamp(both[offset + 1] * scale)
            result[offset + 2] = clamp(both[offset + 2] * scale)
            result[offset + 3] = clamp(alpha)
        }
        return result
    }

    private static func clamp(_ value: Float) -> UInt8 {
        UInt8(min(max(value.rounded(), 0), 255))
    }

    /// For each target index along an axis of `sourceLength`, the source indices it reads and their weights
    /// (summing to 1).
    static func weights(from sourceLength: Int, to targetLength: Int) -> [[(index: Int, weight: Float)]] {
        let ratio = Double(sourceLength) / Double(targetLength)
        return (0..<targetLength).map { target in
            if ratio >= 1 {
                // Shrinking: the source span [start, end) this target pixel covers, partial pixels at the edges.
                let start = Double(target) * ratio, end = min(Double(target + 1) * ratio, Double(sourceLength))
                var taps: [(Int, Float)] = []
                var position = start
                while position < end - 1e-9 {
                    let index = Int(position)
                    let next = min(Double(index + 1), end)
                    taps.append((index, Float((next - position) / ratio)))
                    position = next
                }
                return taps
            }
            // Growing: the two nearest source pixels' centres.
            let centre = (Double(target) + 0.5) * ratio - 0.5
            let low = Int(centre.rounded(.down)), fraction = Float(centre - Double(low))
            let first = min(max(low, 0), sourceLength - 1), second = min(max(low + 1, 0), sourceLength - 1)
            return first == second ? [(first, Float(1))] : [(first, 1 - fraction), (second, fraction)]
        }
    }

    private static func resampleRows(_ values: [Float], width: Int, height: Int, to targetWidth: Int) -> [Float] {
        if targetWidth == width { return values }
        let taps = weights(from: width, to: targetWidth)
        var result = [Float](repeating: 0, count: targetWidth * height * 4)
        for row in 0..<height {
            for (column, columnTaps) in taps.enumerated() {
                let target = (row * targetWidth + column) * 4
                for (index, weight) in columnTaps {
                    let source = (row * width + index) * 4
                    for channel in 0..<4 { result[target + channel] += values[source + channel] * weight }
                }
            }
        }
        return result
    }

    private static func resampleColumns(_ values: [Float], width: Int, height: Int, to targetHeight: Int) -> [Float] {
        if targetHeight == height { return values }
        let taps = weights(from: height, to: targetHeight)
        var result = [Float](repeating: 0, count: width * targetHeight * 4)
        for (row, rowTaps) in taps.enumerated() {
            for (index, weight) in rowTaps {
                let sourceRow = index * width * 4, targetRow = row * width * 4
                for offset in 0..<(width * 4) { result[targetRow + offset] += values[sourceRow + offset] * weight }
            }
        }
        return result
    }
}
