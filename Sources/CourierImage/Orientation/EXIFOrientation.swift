/// The eight orientations of EXIF's Orientation tag (0x0112): how the stored pixels must be turned to be shown
/// upright. Hand-written: no maintained Swift package reads EXIF on Linux, and only this one tag is needed.
enum EXIFOrientation: UInt16, Sendable, CaseIterable {
    /// Shown as stored.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Turned half a turn.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored along the top-left to bottom-right diagonal (transposed).
    case leftMirrored = 5
    /// Stored a quarter turn anticlockwise: shown turned a quarter turn clockwise.
    case right = 6
    /// Mirrored along the other diagonal (transverse).
    case rightMirrored = 7
    /// Stored a quarter turn clockwise: shown turned a quarter turn anticlockwise.
    case left = 8

    /// The orientation a JPEG's first EXIF segment (APP1, `Exif\0\0`) gives, or `nil` when it has none, or a value
    /// outside 1...8. Reads only the segments before the image data; every length and offset is checked against
    /// the bytes.
    init?(jpeg bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }  // image data or the end: no EXIF before it
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }  // no length
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            let segment = UnsafeRawBufferPointer(rebasing: bytes[(index + 4)..<(index + 2 + length)])
            if marker == 0xE1, segment.starts(with: Array("Exif\0\0".utf8)) {
                self.init(tiff: UnsafeRawBufferPointer(rebasing: segment[6...]))
                return
            }
            index += 2 + length
        }
        return nil
    }

    /// The Orientation tag of a TIFF structure's first directory (IFD0).
    private init?(tiff: UnsafeRawBufferPointer) {
        guard tiff.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func read16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            return littleEndian ? Int(tiff[offset]) | Int(tiff[offset + 1]) << 8 : Int(tiff[offset]) << 8 | Int(tiff[offset + 1])
        }
        func read32(_ offset: Int) -> Int? {
            guard let first = read16(offset), let second = read16(offset + 2) else { return nil }
            return littleEndian ? first | second << 16 : first << 16 | second
        }
        guard read16(2) == 42, let directory = read32(4), let count = read16(directory) else { return nil }
        for entry in 0..<count {
            let offset = directory + 2 + entry * 12
            guard let tag = read16(offset) else { return nil }
            // A SHORT (type 3) of count 1 holds its value in the entry's first two value bytes.
            guard tag == 0x0112 else { continue }
            guard read16(offset + 2) == 3, read32(offset + 4) == 1, let value = read16(offset + 8) else { return nil }
            self.init(rawValue: UInt16(value))
            return
        }
        return nil
    }

    /// Whether width and height trade places.
    var swapsSides: Bool { rawValue >= 5 }

    /// `image` turned upright: each shown pixel taken from where this orientation stored it.
    func applied(to image: Image) -> Image {
        let width = image.width, height = image.height
        let shownWidth = swapsSides ? height : width, shownHeight = swapsSides ? width : height
        let frames = image.frames.map { frame in
            let source = frame.pixels
            let pixels = [UInt8](unsafeUninitializedCapacity: source.count) { target, initialized in
                source.withUnsafeBufferPointer { source in
                    for y in 0..<shownHeight {
                        for x in 0..<shownWidth {
                            let (sourceX, sourceY) = storedPosition(ofShownX: x, y: y, storedWidth: width, storedHeight: height)
                            let from = (sourceY * width + sourceX) * 4, to = (y * shownWidth + x) * 4
                            target[to] = source[from]
                            target[to + 1] = source[from + 1]
                            target[to + 2] = source[from + 2]
                            target[to + 3] = source[from + 3]
                        }
                    }
                }
                initialized = source.count
            }
            return Image.Frame(pixels: pixels, delay: frame.delay)
        }
        return Image(checkedWidth: shownWidth, height: shownHeight, format: image.format, frames: frames)
    }

    /// Where the pixel shown at (`x`, `y`) is stored.
    func storedPosition(ofShownX x: Int, y: Int, storedWidth width: Int, storedHeight height: Int) -> (Int, Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (width - 1 - x, y)
        case .down: (width - 1 - x, height - 1 - y)
        case .downMirrored: (x, height - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, height - 1 - x)
        case .rightMirrored: (width - 1 - y, height - 1 - x)
        case .left: (width - 1 - y, x)
        }
    }
}
