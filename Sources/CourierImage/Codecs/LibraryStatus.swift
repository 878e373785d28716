#if canImport(CImageCodecs)
#if canImport(Courier)
import Courier
#endif
import CImageCodecs

/// A `ci_status` from the C boundary (Sources/CImageCodecs) as an ``ImageDecodingError``.
enum LibraryStatus {
    /// Nothing for `CI_STATUS_OK`; the error every other status means, with the library's words.
    static func check(_ status: ci_status, _ info: ci_image_info, format: ImageFormat) throws(ImageDecodingError) {
        let reason: ImageDecodingError.Reason
        switch status {
        case CI_STATUS_OK: return
        case CI_STATUS_TRUNCATED: reason = .truncated
        case CI_STATUS_UNSUPPORTED: reason = .unsupported(message(of: info))
        case CI_STATUS_OUT_OF_MEMORY: reason = .outOfMemory
        case CI_STATUS_TOO_LARGE: reason = .corrupt("\(message(of: info)) is larger than the pixel limit")
        default: reason = .corrupt(message(of: info))
        }
        throw ImageDecodingError(format: format, reason: reason)
    }

    /// The NUL-terminated `message` of `info`.
    static func message(of info: ci_image_info) -> String {
        withUnsafeBytes(of: info.message) { bytes in
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "no reason given" : text
        }
    }

    /// Allocates the pixels of `size` (already checked against the limit) and lets `fill` write them.
    static func pixels(
        of size: ImageSize, _ fill: (UnsafeMutablePointer<UInt8>, Int) -> ci_status
    ) -> (ci_status, [UInt8]) {
        let count = size.width * size.height * Image.bytesPerPixel
        var status = CI_STATUS_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else {
                status = CI_STATUS_OUT_OF_MEMORY
                initialized = 0
                return
            }
            status = fill(base, count)
            initialized = status == CI_STATUS_OK ? count : 0
        }
        return (status, pixels)
    }
}
#endif
