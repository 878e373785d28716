#if canImport(Courier)
import Courier
#endif

/// Why an image could not be decoded: the format (when it was recognized) and the reason.
///
/// Every image is untrusted input: a truncated, corrupt, oversized or unsupported image is this error, never a
/// crash. ``description`` reads as a sentence, such as "PNG: the data ends before the image does".
public struct ImageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The bytes start like no format CourierImage knows (see `ImageFormat`).
        case unrecognizedFormat
        /// A format, or a feature of one, this build does not decode; the text names it.
        case unsupported(String)
        /// The data ends before the image does.
        case truncated
        /// The decoder refused the data; the text is its reason.
        case corrupt(String)
        /// The header promises more pixels than ``ImageDecodingOptions/maximumPixelCount`` allows; nothing was
        /// allocated.
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// An animation's frames so far (`decoded`, each `width` × `height`) and the next one would pass
        /// ``ImageDecodingOptions/maximumPixelCount``; ``ImageDecodingOptions/decodesFirstFrameOnly`` reads the first.
        case tooManyFrames(decoded: Int, width: Int, height: Int, limit: Int)
        /// The decoder could not allocate its working memory.
        case outOfMemory
    }

    /// The format the bytes were recognized as; `nil` for ``Reason/unrecognizedFormat``.
    public let format: ImageFormat?
    /// What went wrong.
    public let reason: Reason

    /// An error for `format` and `reason`.
    public init(format: ImageFormat?, reason: Reason) {
        self.format = format
        self.reason = reason
    }

    /// The format's name, a colon and the reason in words.
    public var description: String {
        let why = switch reason {
        case .unrecognizedFormat: "the data is not an image in a format CourierImage knows (JPEG, PNG, WebP, GIF)"
        case .unsupported(let what): "\(what) is not supported"
        case .truncated: "the data ends before the image does"
        case .corrupt(let reason): "the data is corrupt (\(reason))"
        case .tooManyPixels(let width, let height, let limit):
            "\(width)x\(height) is \(width.multipliedReportingOverflow(by: height).partialValue) pixels, more than the limit of \(limit)"
        case .tooManyFrames(let decoded, let width, let height, let limit):
            "\(decoded + 1) frames of \(width)x\(height) are more pixels than the limit of \(limit)"
        case .outOfMemory: "the decoder ran out of memory"
        }
        return format.map { "\($0.name): \(why)" } ?? why
    }
}
