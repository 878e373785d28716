/// Small, valid images built byte by byte (no binary assets): PNG, baseline JPEG, GIF and SVG.
enum SampleImages {
    /// A 16×16 RGB gradient PNG (zlib stream with stored blocks).
    static let png: [UInt8] = {
        let size = 16
        var scanlines: [UInt8] = []
        for y in 0..<size {
            scanlines.append(0)  // filter: none
            for x in 0..<size {
                scanlines.append(contentsOf: [UInt8(x * 16), UInt8(y * 16), 0x80])
            }
        }
        var header: [UInt8] = StoredDeflate.bigEndian(UInt32(size)) + StoredDeflate.bigEndian(UInt32(size))
        header.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit depth, truecolour, deflate, no filter, no interlace
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += pngChunk("IHDR", header)
        png += pngChunk("IDAT", StoredDeflate.zlib(scanlines))
        png += pngChunk("IEND", [])
        return png
    }()

    /// An 8×8 mid-grey baseline JPEG (JFIF): one component, all coefficients zero.
    static let jpeg: [UInt8] = {
        var jpeg: [UInt8] = [0xFF, 0xD8]  // SOI
        jpeg += segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])  // APP0
        jpeg += segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))  // DQT, table 0
        jpeg += segment(0xC0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0])  // SOF0: 8-bit, 8×8, 1 component
        // One Huffman code of length 1 for symbol 0: DC "category 0" and AC "end of block".
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        jpeg += segment(0xC4, [0x00] + oneCode)  // DHT, DC table 0
        jpeg += segment(0xC4, [0x10] + oneCode)  // DHT, AC table 0
        jpeg += segment(0xDA, [1, 1, 0x00, 0, 63, 0])  // SOS
        jpeg.append(0x3F)  // bits "00" (DC 0, EOB) padded with ones
        jpeg += [0xFF, 0xD9]  // EOI
        return jpeg
    }()

    /// A 1×1 red GIF89a.
    static let gif: [UInt8] =
        Array("GIF89a".utf8)
        + [0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00]  // screen 1×1, 2-colour global table
        + [0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF]  // red, blue
        + [0x2C, 0, 0, 0, 0, 0x01, 0x00, 0x01, 0x00, 0x00]  // image descriptor
        + [0x02, 0x02, 0x44, 0x01, 0x00]  // LZW: clear, index 0, end
        + [0x3B]

    /// A small SVG document.
    static let svg: [UInt8] = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
          <rect width="16" height="16" fill="#3366cc"/>
          <circle cx="8" cy="8" r="5" fill="#ffcc00"/>
        </svg>

        """.utf8
    )

    private static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return StoredDeflate.bigEndian(UInt32(data.count)) + typeBytes + data
            + StoredDeflate.bigEndian(Checksums.crc32(typeBytes + data))
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + StoredDeflate.bigEndian(UInt16(payload.count + 2)) + payload
    }
}
