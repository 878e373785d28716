#if canImport(Courier)
import Courier
#endif

// CourierImage names formats with Courier's `ImageFormat` (the one `ImageResponseSerializer`'s header reader uses),
// so that an app importing both sees one type.
extension ImageFormat {
    /// The format `bytes` start with, among those ``ImageDecoder`` decodes (JPEG, PNG, WebP, GIF), or `nil`. A
    /// `Content-Type` is not consulted: servers send the wrong one often enough.
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

    /// The format as error messages name it: `JPEG`, `PNG`, `GIF`, `WebP`, `BMP`, `TIFF`, `ICO`.
    public var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        case .ico: "ICO"
        }
    }
}
