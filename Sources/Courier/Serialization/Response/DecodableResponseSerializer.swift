import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and decodes its JSON body into `Value` with a `JSONDecoder`.
///
/// Acceptable content types: those of ``JSONResponseSerializer``. A body in another charset than
/// UTF-8 is transcoded first. An empty body is a decoding error (use an optional-friendly
/// serializer such as ``JSONResponseSerializer`` for bodiless responses).
///
/// Thread safety: its only stored property of its own is an immutable reference to a
/// `JSONDecoder` (itself `Sendable`); the inherited state is behind the superclass's `Mutex`.
public final class DecodableResponseSerializer<Value: Decodable>: HTTPResponseSerializer, @unchecked Sendable {
    /// The decoder used for every response. Immutable; configure it before passing it in.
    public let decoder: JSONDecoder

    /// Creates a serializer using `decoder`. Default: a plain `JSONDecoder()`.
    public init(decoder: JSONDecoder) {
        self.decoder = decoder
        super.init(acceptableContentTypes: ["application/json", "text/json", "text/javascript"])
    }

    /// Creates a serializer using a plain `JSONDecoder()`.
    public required convenience init() {
        self.init(decoder: JSONDecoder())
    }

    /// `false`: `Value` may be a class with mutable state, so each caller decodes its own.
    public override var returnsShareableObjects: Bool { false }

    /// A serializer with the same decoder (it is immutable) and settings.
    public override func copy(with zone: NSZone? = nil) -> Any {
        let copy = DecodableResponseSerializer(decoder: decoder)
        copySettings(to: copy)
        return copy
    }

    /// Validates, then decodes a `Value`.
    ///
    /// - Throws: the validation errors, ``ResponseSerializationError/undecodableText(encoding:response:data:)``
    ///   or ``ResponseSerializationError/decodingFailed(reason:response:data:)``.
    public func decodedObject(for response: URLResponse?, data: Data?) throws -> Value {
        try validate(response: response, data: data)
        guard let data, !data.isEmpty else {
            throw ResponseSerializationError.decodingFailed(reason: "the body is empty", response: response, data: data)
        }
        let json = try utf8Data(for: response, data: data)
        do {
            return try decoder.decode(Value.self, from: json)
        } catch {
            throw ResponseSerializationError.decodingFailed(reason: String(describing: error), response: response, data: data)
        }
    }

    /// The same as ``decodedObject(for:data:)``, typed as `Any?`.
    public override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        try decodedObject(for: response, data: data)
    }
}
