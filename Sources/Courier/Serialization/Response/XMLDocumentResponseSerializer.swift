// Built with the XMLSerialization trait (a default one; see Package.swift).
#if XMLSerialization
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(FoundationXML) || os(macOS)
import Synchronization

/// Validates a response and parses its body into an `XMLDocument` (FoundationXML on Linux,
/// Foundation on macOS).
///
/// Acceptable content types: `application/xml`, `text/xml`. An empty body gives `nil`.
///
/// Thread safety: the extra state (``options``) is behind a `Mutex`, like the superclass's.
///
/// Part of the package's `XMLSerialization` trait, one of its defaults.
open class XMLDocumentResponseSerializer: HTTPResponseSerializer, @unchecked Sendable {
    private let documentOptions = Mutex<XMLNode.Options>([])

    /// Creates a serializer with no parsing options.
    public required init() {
        super.init(acceptableContentTypes: ["application/xml", "text/xml"])
    }

    override func copyOwnSettings(to copy: HTTPResponseSerializer) {
        (copy as? XMLDocumentResponseSerializer)?.options = options
    }

    /// `false`: an `XMLDocument` is a mutable object, one per caller.
    open override var returnsShareableObjects: Bool { false }

    /// The options passed to `XMLDocument(data:options:)`. Default: none.
    public var options: XMLNode.Options {
        get { documentOptions.withLock { $0 } }
        set { documentOptions.withLock { $0 = newValue } }
    }

    /// Validates, then parses the document.
    ///
    /// - Throws: the validation errors or ``ResponseSerializationError/invalidXML(reason:response:data:)``.
    open override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        try validate(response: response, data: data)
        guard let data, !data.isEmpty else { return nil }
        // FoundationXML's XMLDocument recovers from malformed input instead of failing, so the
        // body is first checked for well-formedness.
        if let problem = XMLWellFormedness.problem(in: data) {
            throw ResponseSerializationError.invalidXML(reason: problem, response: response, data: data)
        }
        do {
            return try XMLDocument(data: data, options: options)
        } catch {
            throw ResponseSerializationError.invalidXML(reason: String(describing: error), response: response, data: data)
        }
    }
}
#endif
#endif
