// Built with the XMLSerialization trait (a default one; see Package.swift).
#if XMLSerialization
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Checks that XML is well-formed with `XMLParser`.
///
/// On Linux, `XMLParser.parse()` can return `true` after reporting an error to its delegate,
/// and accepts a document whose elements are never closed; this check catches both.
final class XMLWellFormedness: NSObject, XMLParserDelegate {
    private var depth = 0
    private var sawRoot = false
    private var firstError: String?

    /// A description of the first problem, or nil when `data` is well-formed.
    static func problem(in data: Data) -> String? {
        let parser = XMLParser(data: data)
        let check = XMLWellFormedness()
        parser.delegate = check
        let succeeded = parser.parse()
        if let firstError = check.firstError { return firstError }
        if !succeeded { return parser.parserError.map { String(describing: $0) } ?? "the parser failed" }
        if !check.sawRoot { return "no root element" }
        if check.depth != 0 { return "\(check.depth) element(s) not closed" }
        return nil
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        depth += 1
        sawRoot = true
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        depth -= 1
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if firstError == nil { firstError = String(describing: parseError) }
    }

    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) {
        if firstError == nil { firstError = String(describing: validationError) }
    }
}
#endif
