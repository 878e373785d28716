// Built with the XMLSerialization trait (a default one; see Package.swift).
#if XMLSerialization
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and returns an `XMLParser` over its body (not yet parsed: the caller
/// sets a delegate and calls `parse()`).
///
/// Acceptable content types: `application/xml`, `text/xml`. An empty body gives `nil`.
///
/// Thread safety: no stored state of its own; the inherited state is behind the superclass's
/// `Mutex`.
///
/// Part of the package's `XMLSerialization` trait, one of its defaults.
open class XMLParserResponseSerializer: HTTPResponseSerializer, @unchecked Sendable {
    /// Creates a serializer accepting `application/xml` and `text/xml`.
    public required init() {
        super.init(acceptableContentTypes: ["application/xml", "text/xml"])
    }

    /// `false`: an `XMLParser` is a mutable object, one per caller.
    open override var returnsShareableObjects: Bool { false }

    /// Validates, then returns `XMLParser(data:)`.
    open override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        try validate(response: response, data: data)
        guard let data, !data.isEmpty else { return nil }
        return XMLParser(data: data)
    }
}
#endif
