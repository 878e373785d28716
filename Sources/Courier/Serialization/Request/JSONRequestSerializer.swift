import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters as a JSON body (`Content-Type: application/json` unless already set).
///
/// Methods in ``HTTPRequestSerializer/httpMethodsEncodingParametersInURI`` still get a query
/// string. Parameters may be JSON objects (`[String: Any]`, arrays, `NSNull`, numbers...) or
/// `Encodable` values (encoded with `JSONEncoder`, honouring `.prettyPrinted`, `.sortedKeys` and
/// `.withoutEscapingSlashes` from ``writingOptions``).
///
/// Thread safety: the extra state (``writingOptions``) is behind a `Mutex`, like the superclass's.
open class JSONRequestSerializer: HTTPRequestSerializer, @unchecked Sendable {
    private let options = Mutex<JSONSerialization.WritingOptions>([])

    /// Creates a serializer; ``writingOptions`` defaults to none.
    public override init() { super.init() }

    /// The options used to write JSON. Default: none (`[]`).
    public var writingOptions: JSONSerialization.WritingOptions {
        get { options.withLock { $0 } }
        set { options.withLock { $0 = newValue } }
    }

    /// Returns `request` with default headers and `parameters` as JSON (or a query string for
    /// URI methods).
    ///
    /// - Throws: ``RequestSerializationError/invalidJSONObject(_:)`` when the parameters are not
    ///   a valid JSON object, ``RequestSerializationError/encodingFailed(_:)`` when an `Encodable`
    ///   value fails to encode.
    open override func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.request(bySerializing: request, withParameters: parameters)
        }
        var request = applyingDefaultHeaders(to: request)
        guard let parameters else { return request }
        request.httpBody = try Self.jsonData(for: parameters, options: writingOptions)
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// JSON for a JSON object or an `Encodable` value.
    static func jsonData(for parameters: Any, options: JSONSerialization.WritingOptions) throws -> Data {
        if JSONSerialization.isValidJSONObject(parameters) {
            do {
                return try JSONSerialization.data(withJSONObject: parameters, options: options)
            } catch {
                throw RequestSerializationError.invalidJSONObject(String(describing: error))
            }
        }
        if let encodable = parameters as? any Encodable {
            let encoder = JSONEncoder()
            var formatting: JSONEncoder.OutputFormatting = []
            if options.contains(.prettyPrinted) { formatting.insert(.prettyPrinted) }
            if options.contains(.sortedKeys) { formatting.insert(.sortedKeys) }
            if options.contains(.withoutEscapingSlashes) { formatting.insert(.withoutEscapingSlashes) }
            encoder.outputFormatting = formatting
            do {
                return try encoder.encode(encodable)
            } catch {
                throw RequestSerializationError.encodingFailed(String(describing: error))
            }
        }
        throw RequestSerializationError.invalidJSONObject("\(type(of: parameters)) is neither a JSON object nor Encodable")
    }
}
