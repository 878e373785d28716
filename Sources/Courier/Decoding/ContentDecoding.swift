import Foundation

/// How response bodies with a `Content-Encoding` are decoded, as Foundation's URL loading system did for every
/// AFNetworking request.
///
/// With decoding on, requests carry `Accept-Encoding: gzip, deflate` (unless the caller set the header), and a `gzip`
/// or `deflate` body is inflated as it streams, in constant memory. The decoded response no longer has
/// `Content-Encoding` and `Content-Length` (they described the bytes on the wire, as OkHttp removes them), so progress
/// counts decoded bytes delivered against an unknown total; the head as received stays in the exchange's metrics.
///
/// A request with `Range` (a resumed download, or the caller's own) asks for `Accept-Encoding: identity` and is
/// never decoded, so the bytes kept on disk and the bytes appended are the same representation. Codings other than
/// `gzip`, `x-gzip` and `deflate` (for example `br`), and bodies with several codings, are delivered as they came.
///
/// A decompression bomb is refused with `URLError(.cannotDecodeContentData)`: by ``maximumRatio`` once the decoded
/// body passes ``ratioFloor``, and by ``maximumDecodedSize``.
public struct ContentDecoding: Sendable, Equatable {
    /// The most decoded bytes per encoded byte, checked once more than ``ratioFloor`` bytes were decoded. Default
    /// 100 (ordinary text and JSON compress 3–30 times; zlib's own ceiling is about 1,032).
    public var maximumRatio: Int64
    /// How many decoded bytes any body may have whatever its ratio, so small, very repetitive bodies pass.
    /// Default 1 MiB.
    public var ratioFloor: Int64
    /// The most decoded bytes of one body, or `nil` for no limit besides the ratio. Default `nil`.
    public var maximumDecodedSize: Int64?

    /// Creates decoding settings.
    /// - Parameters:
    ///   - maximumRatio: Decoded bytes per encoded byte. Default 100.
    ///   - ratioFloor: Decoded bytes allowed whatever the ratio. Default 1 MiB.
    ///   - maximumDecodedSize: The most decoded bytes. Default `nil`.
    public init(maximumRatio: Int64 = 100, ratioFloor: Int64 = 1 << 20, maximumDecodedSize: Int64? = nil) {
        self.maximumRatio = maximumRatio
        self.ratioFloor = ratioFloor
        self.maximumDecodedSize = maximumDecodedSize
    }

    /// `gzip` and `deflate` decoded with the default limits.
    public static let `default` = ContentDecoding()

    /// The `Accept-Encoding` sent when the caller set none.
    static let acceptedCodings = "gzip, deflate"

    /// The `Accept-Encoding` a request without one is sent with: `identity` for a range request (a continued
    /// download must append the same representation it kept: decoded bytes cannot be continued by `Range`), the
    /// codings Courier decodes otherwise. `DefaultHeadersStage` sets it; `ContentDecodingStage` decodes what it
    /// allowed.
    static func acceptEncoding(forRange isRange: Bool) -> String {
        isRange ? "identity" : acceptedCodings
    }
}
