/// Produces valid gzip (RFC 1952) and zlib (RFC 1950, HTTP's `deflate`) streams using DEFLATE
/// *stored* blocks (RFC 1951 §3.2.4).
///
/// The output is not smaller than the input, but every conforming decoder inflates it, which is
/// what `/gzip`, `/deflate` and the generated PNG need. This avoids a zlib dependency.
enum StoredDeflate {
    /// Largest payload of one stored block.
    private static let maxBlock = 65_535

    /// Raw DEFLATE data made of stored blocks.
    static func deflateRaw(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count + (input.count / maxBlock + 1) * 5)
        var start = 0
        repeat {
            let end = min(start + maxBlock, input.count)
            let length = UInt16(end - start)
            output.append(end == input.count ? 0x01 : 0x00)  // BFINAL, BTYPE=00
            output.append(contentsOf: littleEndian(length))
            output.append(contentsOf: littleEndian(~length))
            output.append(contentsOf: input[start..<end])
            start = end
        } while start < input.count
        return output
    }

    /// A zlib stream (the `deflate` content coding).
    static func zlib(_ input: [UInt8]) -> [UInt8] {
        // CMF: deflate with a 32 KiB window; FLG: fastest, check bits so that CMF*256+FLG is a multiple of 31.
        var output: [UInt8] = [0x78, 0x01]
        output.append(contentsOf: deflateRaw(input))
        output.append(contentsOf: bigEndian(Checksums.adler32(input)))
        return output
    }

    /// A gzip member (the `gzip` content coding).
    static func gzip(_ input: [UInt8]) -> [UInt8] {
        // ID1 ID2, CM=8, FLG=0, MTIME=0, XFL=0, OS=255 (unknown).
        var output: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        output.append(contentsOf: deflateRaw(input))
        output.append(contentsOf: littleEndian(Checksums.crc32(input)))
        output.append(contentsOf: littleEndian(UInt32(truncatingIfNeeded: input.count)))
        return output
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        littleEndian(value).reversed()
    }
}
