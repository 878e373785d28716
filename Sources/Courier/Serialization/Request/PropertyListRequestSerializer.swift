import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters as a property list body (`Content-Type: application/x-plist` unless
/// already set).
///
/// Methods in ``HTTPRequestSerializer/httpMethodsEncodingParametersInURI`` still get a query
/// string. Parameters may be property list objects or `Encodable` values (encoded with
/// `PropertyListEncoder`).
///
/// Thread safety: the extra state (``format``) is behind a `Mutex`, like the superclass's.
open class PropertyListRequestSerializer: HTTPRequestSerializer, @unchecked Sendable {
    private let plistFormat = Mutex<PropertyListSerialization.PropertyListFormat>(.xml)

    /// Creates a serializer writing the given format. Default: `.xml`.
    public init(format: PropertyListSerialization.PropertyListFormat = .xml) {
        super.init()
        self.format = format
    }

    /// Creates a serializer writing XML property lists.
    public override convenience init() { self.init(format: .xml) }

    /// The property list format written: `.xml` (default) or `.binary`. (`.openStep` cannot be
    /// written by Foundation and makes serialization fail.)
    public var format: PropertyListSerialization.PropertyListFormat {
        get { plistFormat.withLock { $0 } }
        set { plistFormat.withLock { $0 = newValue } }
    }

    /// Returns `request` with default headers and `parameters` as a property list (or a query
    /// string for URI methods).
    ///
    /// - Throws: ``RequestSerializationError/invalidPropertyList(_:)`` when the parameters are not
    ///   a valid property list.
    open override func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.request(bySerializing: request, withParameters: parameters)
        }
        var request = applyingDefaultHeaders(to: request)
        guard let parameters else { return request }
        request.httpBody = try Self.propertyListData(for: parameters, format: format)
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/x-plist", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    static func propertyListData(for parameters: Any, format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        if PropertyListSerialization.propertyList(parameters, isValidFor: format) {
            do {
                return try PropertyListSerialization.data(fromPropertyList: parameters, format: format, options: 0)
            } catch {
                throw RequestSerializationError.invalidPropertyList(String(describing: error))
            }
        }
        if let encodable = parameters as? any Encodable {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format
            do {
                return try encoder.encode(encodable)
            } catch {
                throw RequestSerializationError.invalidPropertyList(String(describing: error))
            }
        }
        throw RequestSerializationError.invalidPropertyList("\(type(of: parameters)) is neither a property list nor Encodable")
    }
}
