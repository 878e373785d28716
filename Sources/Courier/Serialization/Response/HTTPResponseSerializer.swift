import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates status codes and content types; returns the body data unchanged.
///
/// The counterpart of `AFHTTPResponseSerializer` and the superclass of Courier's other response
/// serializers. Validation only applies to HTTP responses.
///
/// Thread safety: one serializer may be shared by many threads. Every stored mutable property
/// lives in `settings`, behind a `Mutex`; that is what makes the `@unchecked Sendable` sound.
/// Subclasses must keep the same rule for the state they add.
open class HTTPResponseSerializer: URLResponseSerialization, NSCopying, @unchecked Sendable {
    private struct Settings: Sendable {
        var acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300)
        var acceptableContentTypes: Set<String>?
        var stringEncoding: String.Encoding = .utf8
    }

    /// All mutable state, behind a lock (see the type's documentation).
    private let settings = Mutex(Settings())

    /// Creates a serializer accepting status codes 200..<300 and any content type. Required, so that
    /// ``copy(with:)`` can make an instance of the same class (as AFNetworking's `[[self class] new]`).
    public required init() {}

    /// Creates a serializer accepting status codes 200..<300 and the given content types.
    init(acceptableContentTypes: Set<String>?) {
        settings.withLock { $0.acceptableContentTypes = acceptableContentTypes }
    }

    /// The accepted status codes; `nil` accepts any. Default: 200..<300.
    public var acceptableStatusCodes: IndexSet? {
        get { settings.withLock { $0.acceptableStatusCodes } }
        set { settings.withLock { $0.acceptableStatusCodes = newValue } }
    }

    /// The accepted MIME types (compared case-insensitively, parameters ignored); `nil` accepts
    /// any. Default: `nil` here; each subclass sets its own.
    public var acceptableContentTypes: Set<String>? {
        get { settings.withLock { $0.acceptableContentTypes } }
        set { settings.withLock { $0.acceptableContentTypes = newValue } }
    }

    /// The encoding used for text when the response names no charset. Default: UTF-8.
    public var stringEncoding: String.Encoding {
        get { settings.withLock { $0.stringEncoding } }
        set { settings.withLock { $0.stringEncoding = newValue } }
    }

    /// A new serializer of the same class with the same settings (AFNetworking's serializers adopt
    /// NSCopying). A subclass that adds settings of its own overrides this, calls `super` and copies them.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = type(of: self).init()
        copySettings(to: copy)
        return copy
    }

    /// Copies every setting onto `copy`, an instance of the same class.
    final func copySettings(to copy: HTTPResponseSerializer) {
        copy.settings.withLock { $0 = settings.withLock { $0 } }
        copyOwnSettings(to: copy)
    }

    /// Copies the settings a Courier subclass adds onto `copy`, an instance of the same class.
    func copyOwnSettings(to copy: HTTPResponseSerializer) {}

    /// Checks the status code and, when there is a body, the content type.
    ///
    /// - Throws: ``ResponseSerializationError/unacceptableStatusCode(_:response:data:)`` or
    ///   ``ResponseSerializationError/unacceptableContentType(_:acceptable:response:data:)``
    ///   (status first), carrying the response and the data.
    open func validate(response: URLResponse?, data: Data?) throws {
        guard let http = response as? HTTPURLResponse else { return }
        let current = settings.withLock { ($0.acceptableStatusCodes, $0.acceptableContentTypes) }
        if let codes = current.0, !codes.contains(http.statusCode) {
            throw ResponseSerializationError.unacceptableStatusCode(http.statusCode, response: http, data: data)
        }
        if let types = current.1, let data, !data.isEmpty {
            let mimeType = Self.mediaType(of: http)?.mimeType
            let accepted = mimeType.map { type in types.contains { $0.lowercased() == type } } ?? false
            if !accepted {
                throw ResponseSerializationError.unacceptableContentType(mimeType, acceptable: types, response: http, data: data)
            }
        }
    }

    /// `true`: the data itself is an immutable value. Subclasses that return mutable objects override it.
    open var returnsShareableObjects: Bool { true }

    /// Validates the response and returns `data` as it is.
    open func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        try validate(response: response, data: data)
        return data
    }

    /// The parsed `Content-Type` of `response`, if it has a valid one.
    static func mediaType(of response: URLResponse?) -> MediaType? {
        if let http = response as? HTTPURLResponse, let header = http.value(forHTTPHeaderField: "Content-Type") {
            return MediaType(parsing: header)
        }
        guard let mimeType = response?.mimeType else { return nil }
        return MediaType(parsing: mimeType + (response?.textEncodingName.map { "; charset=\($0)" } ?? ""))
    }

    /// The body decoded as text: byte order mark first, then the response's charset (any IANA name or alias
    /// `CharsetDecoding` resolves), then ``stringEncoding`` when the response names no charset.
    ///
    /// - Throws: ``ResponseSerializationError/unsupportedCharset(name:response:data:)`` when the response names a
    ///   charset Courier cannot decode (unless a byte order mark decides; there is no fallback to
    ///   ``stringEncoding``), ``ResponseSerializationError/undecodableText(encoding:response:data:)`` when the bytes
    ///   are not valid in the encoding.
    public final func string(for response: URLResponse?, data: Data) throws -> String {
        let charset = Self.mediaType(of: response)?.charset
        do {
            return try CharsetDecoding.decoding(data, charset: charset, defaultEncoding: stringEncoding)
        } catch {
            switch error {
            case .unsupportedCharset(let name):
                throw ResponseSerializationError.unsupportedCharset(name: name, response: response, data: data)
            case .invalidBytes(let encoding):
                throw ResponseSerializationError.undecodableText(encoding: encoding, response: response, data: data)
            }
        }
    }

    /// `data` as UTF-8: unchanged when it is declared (or defaults to) UTF-8 without a byte order
    /// mark, otherwise decoded with ``string(for:data:)`` and re-encoded.
    ///
    /// - Throws: the errors of ``string(for:data:)``; an unsupported charset is an error here too.
    public final func utf8Data(for response: URLResponse?, data: Data) throws -> Data {
        let charset = Self.mediaType(of: response)?.charset
        // nil for a charset Courier cannot decode, which string(for:data:) reports.
        let declared: String.Encoding? = charset.map { CharsetDecoding.encoding(forCharset: $0) } ?? stringEncoding
        let hasByteOrderMark = data.starts(with: [0xEF, 0xBB, 0xBF]) || data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE])
        if declared == .utf8, !hasByteOrderMark { return data }
        return Data(try string(for: response, data: data).utf8)
    }
}
