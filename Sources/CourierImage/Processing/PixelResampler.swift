/// Resampling of RGBA pixels, one axis at a time: area averaging to shrink, bilinear interpolation to grow.
/// Hand-written: Linux has no maintained Swift image-processing package (vImage and Core Image are Apple's).
///
/// The loops run over raw buffers with the taps in flat arrays: this is the per-pixel path of every thumbnail, and
/// bounds checks and nested arrays made it twice the decode's time (`scripts/bench-thumbnails`).
enum PixelResampler {
    /// `pixels` of `source` size resampled to `target` size.
    static func resample(_ pixels: [UInt8], from source: ImageSize, to target: ImageSize) -> [UInt8] {
        let columns = Taps(from: source.width, to: target.width)
        let rows = Taps(from: source.height, to: target.height)
        // Rows first: the horizontal pass reads the bytes once (premultiplied on the way, so that a transparent
        // pixel's colour does not bleed into its neighbours) and leaves the vertical pass the narrower image.
        var horizontal = [Float](repeating: 0, count: target.width * source.height * 4)
        pixels.withUnsafeBufferPointer { input in
            horizontal.withUnsafeMutableBufferPointer { output in
                resampleRows(input, width: source.width, height: source.height, taps: columns, into: output)
            }
        }
        var both = [Float](repeating: 0, count: target.width * target.height * 4)
        horizontal.withUnsafeBufferPointer { input in
            both.withUnsafeMutableBufferPointer { output in
                resampleColumns(input, width: target.width, taps: rows, into: output)
            }
        }
        return [UInt8](unsafeUninitializedCapacity: both.count) { result, initialized in
            both.withUnsafeBufferPointer { both in
                for offset in stride(from: 0, to: both.count, by: 4) {
                    let alpha = both[offset + 3]
                    guard alpha > 0.5 else {
                        for channel in 0..<4 { result[offset + channel] = 0 }
                        continue
                    }
                    let scale = 255 / alpha
                    result[offset] = clamp(both[offset] * scale)
                    result[offset + 1] = clamp(both[offset + 1] * scale)
                    result[offset + 2] = clamp(both[offset + 2] * scale)
                    result[offset + 3] = clamp(alpha)
                }
            }
            initialized = both.count
        }
    }

    /// Rounded to the nearest (halves away from zero) and clamped to 0…255.
    @inline(__always)
    private static func clamp(_ value: Float) -> UInt8 {
        guard value > 0 else { return 0 }
        return UInt8(min(value + 0.5, 255))
    }

    /// For each target index along an axis, the source indices it reads and their weights (summing to 1), flat:
    /// target `t` uses entries `start[t] ..< start[t + 1]`.
    struct Taps {
        var start: [Int] = [0]
        var index: [Int] = []
        var weight: [Float] = []

        init(from sourceLength: Int, to targetLength: Int) {
            let ratio = Double(sourceLength) / Double(targetLength)
            for target in 0..<targetLength {
                if ratio >= 1 {
                    // Shrinking: the source span [start, end) this target pixel covers, partial pixels at the edges.
                    let end = min(Double(target + 1) * ratio, Double(sourceLength))
                    var position = Double(target) * ratio
                    while position < end - 1e-9 {
                        let index = Int(position)
                        let next = min(Double(index + 1), end)
                        append(index, Float((next - position) / ratio))
                        position = next
                    }
                } else {
                    // Growing: the two nearest source pixels' centres.
                    let centre = (Double(target) + 0.5) * ratio - 0.5
                    let low = Int(centre.rounded(.down)), fraction = Float(centre - Double(low))
                    let first = min(max(low, 0), sourceLength - 1), second = min(max(low + 1, 0), sourceLength - 1)
                    if first == second {
                        append(first, 1)
                    } else {
                        append(first, 1 - fraction)
                        append(second, fraction)
                    }
                }
                start.append(index.count)
            }
        }

        private mutating func append(_ source: Int, _ sourceWeight: Float) {
            index.append(source)
            weight.append(sourceWeight)
        }
    }

    /// Each row of the bytes, premultiplied, resampled to the taps' length.
    private static func resampleRows(
        _ input: UnsafeBufferPointer<UInt8>, width: Int, height: Int, taps: Taps, into output: UnsafeMutableBufferPointer<Float>
    ) {
        let targetWidth = taps.start.count - 1
        taps.start.withUnsafeBufferPointer { start in
            taps.index.withUnsafeBufferPointer { index in
                taps.weight.withUnsafeBufferPointer { weight in
                    for row in 0..<height {
                        let sourceRow = row * width * 4
                        let targetRow = row * targetWidth * 4
                        for column in 0..<targetWidth {
                            var red: Float = 0, green: Float = 0, blue: Float = 0, alpha: Float = 0
                            for tap in start[column]..<start[column + 1] {
                                let source = sourceRow + index[tap] * 4
                                let a = Float(input[source + 3])
                                let premultiplied = a / 255 * weight[tap]
                                red += Float(input[source]) * premultiplied
                                green += Float(input[source + 1]) * premultiplied
                                blue += Float(input[source + 2]) * premultiplied
                                alpha += a * weight[tap]
                            }
                            let target = targetRow + column * 4
                            output[target] = red
                            output[target + 1] = green
                            output[target + 2] = blue
                            output[target + 3] = alpha
                        }
                    }
                }
            }
        }
    }

    /// Each column of the premultiplied rows resampled to the taps' length (a weighted sum of whole rows).
    private static func resampleColumns(
        _ input: UnsafeBufferPointer<Float>, width: Int, taps: Taps, into output: UnsafeMutableBufferPointer<Float>
    ) {
        let rowLength = width * 4
        let targetHeight = taps.start.count - 1
        taps.start.withUnsafeBufferPointer { start in
            taps.index.withUnsafeBufferPointer { index in
                taps.weight.withUnsafeBufferPointer { weight in
                    for row in 0..<targetHeight {
                        let targetRow = row * rowLength
                        for tap in start[row]..<start[row + 1] {
                            let sourceRow = index[tap] * rowLength
                            let tapWeight = weight[tap]
                            for offset in 0..<rowLength { output[targetRow + offset] += input[sourceRow + offset] * tapWeight }
                        }
                    }
                }
            }
        }
    }
}
