/// The encoded formats CourierImage recognizes, read from an image's first bytes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG (JFIF or EXIF): baseline or progressive, greyscale, YCbCr or CMYK.
    case jpeg
    /// PNG: any bit depth and colour type, interlaced or not.
    case png
    /// GIF: every frame, composed as browsers show them, with its delay.
    case gif
    /// WebP: lossy, lossless, with alpha, animated.
    case webp

    /// The format `bytes` start with, or `nil` when they start like none of these. A `Content-Type` is not
    /// consulted: servers send the wrong one often enough.
    public init?(sniffing bytes: some Collection<UInt8>) {
        var header = [UInt8]()
        header.reserveCapacity(12)
        for byte in bytes.prefix(12) { header.append(byte) }
        if header.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if header.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if header.starts(with: Array("GIF87a".utf8)) || header.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if header.count == 12, header.starts(with: Array("RIFF".utf8)), header[8...].elementsEqual("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }

    /// `JPEG`, `PNG`, `GIF` or `WebP`: how error messages name the format.
    public var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }
}
