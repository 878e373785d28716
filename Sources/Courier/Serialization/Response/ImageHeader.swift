// Self-contained (standard library only): also compiled into the fuzz target in /Fuzz.

/// The image formats whose headers Courier reads.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    /// PNG (`image/png`).
    case png
    /// JPEG / JFIF / EXIF (`image/jpeg`).
    case jpeg
    /// GIF 87a and 89a (`image/gif`).
    case gif
    /// Windows bitmap (`image/bmp`).
    case bmp
    /// WebP: lossy (VP8), lossless (VP8L) and extended (VP8X) (`image/webp`).
    case webp
    /// TIFF, little- and big-endian (`image/tiff`).
    case tiff
    /// Windows icon (`image/x-icon`); the size is the first image's.
    case ico
}

/// Why image bytes were rejected by ``ImageHeader``.
public enum ImageHeaderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes start with no known image signature.
    case unknownFormat
    /// The bytes end before the structure they announce (header, chunk, marker, file size).
    case truncated(ImageFormat)
    /// A structure is inconsistent (zero size, bad chunk order, missing start code...).
    case corrupt(ImageFormat, String)

    /// A sentence describing the error.
    public var description: String {
        switch self {
        case .unknownFormat: return "unknown image format"
        case .truncated(let format): return "truncated \(format.rawValue.uppercased()) image"
        case .corrupt(let format, let why): return "corrupt \(format.rawValue.uppercased()) image: \(why)"
        }
    }
}

/// The format and pixel size of an image, read from its header without decoding pixels.
///
/// Truncation is checked as far as the container allows: a PNG must hold whole chunks up to
/// `IEND`, a JPEG must reach a frame header and end with `EOI`, a GIF must end with its trailer,
/// a BMP and a WebP must be as long as the size they declare.
public struct ImageHeader: Sendable, Equatable {
    /// The image format.
    public let format: ImageFormat
    /// The width in pixels.
    public let pixelWidth: Int
    /// The height in pixels.
    public let pixelHeight: Int

    /// Creates a header description.
    public init(format: ImageFormat, pixelWidth: Int, pixelHeight: Int) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    /// Reads the header of `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(ImageHeaderError) -> ImageHeader {
        let reader = ImageByteReader(bytes)
        if reader.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) { return try parsePNG(reader) }
        if reader.matches([0xFF, 0xD8, 0xFF], at: 0) { return try parseJPEG(reader) }
        if reader.matches(Array("GIF87a".utf8), at: 0) || reader.matches(Array("GIF89a".utf8), at: 0) { return try parseGIF(reader) }
        if reader.matches(Array("BM".utf8), at: 0) { return try parseBMP(reader) }
        if reader.matches(Array("RIFF".utf8), at: 0), reader.matches(Array("WEBP".utf8), at: 8) { return try parseWebP(reader) }
        if reader.matches([0x49, 0x49, 0x2A, 0x00], at: 0) || reader.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0) { return try parseTIFF(reader) }
        if reader.matches([0x00, 0x00, 0x01, 0x00], at: 0) { return try parseICO(reader) }
        throw .unknownFormat
    }

    private static func sized(_ format: ImageFormat, _ width: Int, _ height: Int) throws(ImageHeaderError) -> ImageHeader {
        guard width > 0, height > 0 else { throw .corrupt(format, "zero width or height") }
        return ImageHeader(format: format, pixelWidth: width, pixelHeight: height)
    }

    private static func parsePNG(_ reader: ImageByteReader) throws(ImageHeaderError) -> ImageHeader {
        var offset = 8
        var size: (Int, Int)?
        var first = true
        while true {
            guard let length = reader.uint32BE(at: offset), reader.has(offset + 8) else { throw .truncated(.png) }
            let type = reader.slice(offset + 4, 4)
            let chunkEnd = offset + 12 + Int(length)
            guard length <= 0x7FFF_FFFF, chunkEnd <= reader.count else { throw .truncated(.png) }
            if first {
                guard type == Array("IHDR".utf8), length >= 8,
                      let width = reader.uint32BE(at: offset + 8), let height = reader.uint32BE(at: offset + 12) else {
                    throw .corrupt(.png, "the first chunk is not a valid IHDR")
                }
                size = (Int(width), Int(height))
                first = false
            }
            if type == Array("IEND".utf8) { break }
            offset = chunkEnd
        }
        guard let (width, height) = size else { throw .corrupt(.png, "no IHDR") }
        return try sized(.png, width, height)
    }

    private static func parseJPEG(_ reader: ImageByteReader) throws(ImageHeaderError) -> ImageHeader {
        var offset = 2
        var size: (Int, Int)?
        while size == nil {
            guard let marker = reader.byte(at: offset), let kind = reader.byte(at: offset + 1) else { throw .truncated(.jpeg) }
            guard marker == 0xFF else { throw .corrupt(.jpeg, "expected a marker") }
            if kind == 0xFF { offset += 1; continue }  // fill byte
            if kind == 0xD8 || kind == 0x01 || (0xD0...0xD7).contains(kind) { offset += 2; continue }
            if kind == 0xD9 || kind == 0xDA { throw .corrupt(.jpeg, "no frame header before the image data") }
            guard let length = reader.uint16BE(at: offset + 2) else { throw .truncated(.jpeg) }
            guard length >= 2 else { throw .corrupt(.jpeg, "segment length below 2") }
            let isFrameHeader = (0xC0...0xCF).contains(kind) && kind != 0xC4 && kind != 0xC8 && kind != 0xCC
            if isFrameHeader {
                guard let height = reader.uint16BE(at: offset + 5), let width = reader.uint16BE(at: offset + 7) else {
                    throw .truncated(.jpeg)
                }
                size = (Int(width), Int(height))
            }
            offset += 2 + Int(length)
            guard offset <= reader.count else { throw .truncated(.jpeg) }
        }
        guard reader.count >= offset + 2, reader.matches([0xFF, 0xD9], at: reader.count - 2) else { throw .truncated(.jpeg) }
        guard let (width, height) = size else { throw .truncated(.jpeg) }
        return try sized(.jpeg, width, height)
    }

    private static func parseGIF(_ reader: ImageByteReader) throws(ImageHeaderError) -> ImageHeader {
        guard let width = reader.uint16LE(at: 6), let height = reader.uint16LE(at: 8), reader.count >= 14 else {
            throw .truncated(.gif)
        }
        guard reader.byte(at: reader.count - 1) == 0x3B else { throw .truncated(.gif) }
        return try sized(.gif, Int(width), Int(height))
    }

    private static func parseBMP(_ reader: ImageByteReader) throws(ImageHeaderError) -> ImageHeader {
        guard let fileSize = reader.uint32LE(at: 2), let pixelOffset = reader.uint32LE(at: 10),
              let infoSize = reader.uint32LE(at: 14) else { throw .truncated(.bmp) }
        let width: Int
        let height: Int
        if infoSize == 12 {
            guard let w = reader.uint16LE(at: 18), let h = reader.uint16LE(at: 20) else { throw .truncated(.bmp) }
            (width, height) = (Int(w), Int(h))
        } else if infoSize >= 40 {
            guard let w = reader.uint32LE(at: 18), let h = reader.uint32LE(at: 22) else { throw .truncated(.bmp) }
            (width, height) = (Int(Int32(bitPattern: w)), abs(Int(Int32(bitPattern: h))))
        } else {
            throw .corrupt(.bmp, "unknown info header size \(infoSize)")
        }
        guard Int(pixelOffset) >= 14 + Int(infoSize) else { throw .corrupt(.bmp, "pixel data inside the header") }
        guard reader.count >= Int(pixelOffset), reader.count >= Int(fileSize) else { throw .truncated(.bmp) }
        return try sized(.bmp, width, height)
    }

    private static func parseWebP(_ reader: ImageByteReader) throws(ImageHeaderError) -> ImageHeader {
        guard let riffSize = reader.uint32LE(at: 4), reader.has(16) else { throw .truncated(.webp) }
        guard reader.count >= 8 + Int(riffSize) else { throw .truncated(.webp) }
        let chunk = reader.slice(12, 4)
        if chunk == Array("VP8X".utf8) {
            guard let w = reader.uint24LE(at: 24), let h = reader.uint24LE(at: 27) else { throw .truncated(.webp) }
            return try sized(.webp, Int(w) + 1, Int(h) + 1)
        }
        if chunk == Array("VP8L".utf8) {
            guard let signature = reader.byte(at: 20), let bits = reader.uint32LE(at: 21) else { throw .truncated(.webp) }
            guard signature == 0x2F else { throw .corrupt(.webp, "bad VP8L signature") }
            return try sized(.webp, Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
        }
        if chunk == Array("VP8 ".utf8) {
            guard reader.has(30) else { throw .truncated(.webp) }
            guard reader.matches([0x9D, 0x01, 0x2A], at: 23) else { throw .corrupt(.webp, "missing VP8 start code") }
            guard let w = reader.uint16LE(at: 26), let h = reader.uint16LE(at: 28) else { throw .truncated(.webp) }
            return try sized(.webp, Int(w & 0x3FFF), Int(h & 0x3FFF))
        }
        throw .corrupt(.webp, "unknown first chunk")
    }

    private static func parseTIFF(_ reader: ImageByteReader) throws(ImageHeaderError) -> ImageHeader {
        let little = reader.byte(at: 0) == 0x49
        func u16(_ at: Int) -> Int? { (little ? reader.uint16LE(at: at) : reader.uint16BE(at: at)).map(Int.init) }
        func u32(_ at: Int) -> Int? { (little ? reader.uint32LE(at: at) : reader.uint32BE(at: at)).map(Int.init) }
        guard let ifd = u32(4), let entries = u16(ifd) else { throw .truncated(.tiff) }
        guard reader.has(ifd + 2 + entries * 12 + 4) else { throw .truncated(.tiff) }  // entries + next-IFD offset
        var width: Int?
        var height: Int?
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2) else { throw .truncated(.tiff) }
            guard tag == 256 || tag == 257 else { continue }
            let value: Int?
            switch type {
            case 3: value = u16(entry + 8)
            case 4: value = u32(entry + 8)
            default: throw .corrupt(.tiff, "size tag of type \(type)")
            }
            guard let value else { throw .truncated(.tiff) }
            if tag == 256 { width = value } else { height = value }
        }
        guard let width, let height else { throw .corrupt(.tiff, "no width or height tag") }
        return try sized(.tiff, width, height)
    }

    private static func parseICO(_ reader: ImageByteReader) throws(ImageHeaderError) -> ImageHeader {
        guard let count = reader.uint16LE(at: 4), let w = reader.byte(at: 6), let h = reader.byte(at: 7),
              let dataSize = reader.uint32LE(at: 14), let dataOffset = reader.uint32LE(at: 18) else {
            throw .truncated(.ico)
        }
        guard count > 0 else { throw .corrupt(.ico, "no images") }
        guard reader.count >= Int(dataOffset) + Int(dataSize) else { throw .truncated(.ico) }
        return try sized(.ico, w == 0 ? 256 : Int(w), h == 0 ? 256 : Int(h))
    }
}

/// Bounds-checked little- and big-endian reads; every read past the end gives nil.
struct ImageByteReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }
    /// Whether `offset` bytes are available (indices `0..<offset`).
    func has(_ offset: Int) -> Bool { offset >= 0 && offset <= bytes.count }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func slice(_ offset: Int, _ length: Int) -> [UInt8] {
        guard offset >= 0, length >= 0, offset <= bytes.count - length else { return [] }
        return Array(bytes[offset..<offset + length])
    }

    func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        !pattern.isEmpty && slice(offset, pattern.count) == pattern
    }

    private func value(at offset: Int, length: Int, bigEndian: Bool) -> UInt32? {
        let part = slice(offset, length)
        guard part.count == length else { return nil }
        let ordered = bigEndian ? part : part.reversed()
        return ordered.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
    }

    func uint16BE(at offset: Int) -> UInt16? { value(at: offset, length: 2, bigEndian: true).map { UInt16($0) } }
    func uint16LE(at offset: Int) -> UInt16? { value(at: offset, length: 2, bigEndian: false).map { UInt16($0) } }
    func uint24LE(at offset: Int) -> UInt32? { value(at: offset, length: 3, bigEndian: false) }
    func uint32BE(at offset: Int) -> UInt32? { value(at: offset, length: 4, bigEndian: true) }
    func uint32LE(at offset: Int) -> UInt32? { value(at: offset, length: 4, bigEndian: false) }
}
