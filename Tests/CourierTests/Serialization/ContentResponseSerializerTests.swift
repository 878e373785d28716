import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Courier

@Suite("XML, property list, compound and Decodable response serializers")
struct ContentResponseSerializerTests {
    typealias Support = SerializationTestSupport

    final class ElementCounter: NSObject, XMLParserDelegate {
        var names: [String] = []
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            names.append(elementName)
        }
    }

    @Test func xmlParserIsReturnedReadyToParse() throws {
        let response = try #require(Support.response(contentType: "text/xml"))
        let parser = try #require(try XMLParserResponseSerializer().responseObject(for: response, data: Data("<a><b/><c/></a>".utf8)) as? XMLParser)
        let counter = ElementCounter()
        parser.delegate = counter
        #expect(parser.parse())
        #expect(counter.names == ["a", "b", "c"])
        let json = try #require(Support.response(contentType: "application/json"))
        #expect(throws: ResponseSerializationError.self) { try XMLParserResponseSerializer().responseObject(for: json, data: Data("<a/>".utf8)) }
    }

    @Test func xmlDocumentParsesAndRejectsMalformedXML() throws {
        let response = try #require(Support.response(contentType: "application/xml; charset=utf-8"))
        let document = try #require(try XMLDocumentResponseSerializer().responseObject(for: response, data: Data("<root><item id=\"1\">x</item></root>".utf8)) as? XMLDocument)
        #expect(document.rootElement()?.name == "root")
        #expect(document.rootElement()?.elements(forName: "item").first?.stringValue == "x")
        for text in ["<root><item></root>", "<root>", "<a></b>", "not xml", "<a/><b/>"] {
            let broken = Data(text.utf8)
            #expect(throws: ResponseSerializationError.self, "\(text)") {
                try XMLDocumentResponseSerializer().responseObject(for: response, data: broken)
            }
        }
        let broken = Data("<root><item></root>".utf8)
        #expect {
            try XMLDocumentResponseSerializer().responseObject(for: response, data: broken)
        } throws: { error in
            guard case .invalidXML(_, _, let data)? = error as? ResponseSerializationError else { return false }
            return data == broken
        }
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func propertyListsInBothFormats(format: PropertyListSerialization.PropertyListFormat) throws {
        let body = try PropertyListSerialization.data(fromPropertyList: ["name": "x", "list": [1, 2]] as [String: Any], format: format, options: 0)
        let response = try #require(Support.response(contentType: "application/x-plist"))
        let object = try #require(try PropertyListResponseSerializer().responseObject(for: response, data: body) as? [String: Any])
        #expect(object["name"] as? String == "x")
        #expect((object["list"] as? [Any])?.count == 2)
    }

    @Test func invalidPropertyListIsAnError() throws {
        let response = try #require(Support.response(contentType: "application/x-plist"))
        for text in ["<plist><dict><key>a</key></plist>", "bplist00\u{1}", "not a plist at all {"] {
            #expect(throws: ResponseSerializationError.self, "\(text)") {
                try PropertyListResponseSerializer().responseObject(for: response, data: Data(text.utf8))
            }
        }
        #expect(try PropertyListResponseSerializer().responseObject(for: response, data: Data()) == nil)
    }

    @Test func compoundReturnsTheFirstSuccess() throws {
        let compound = CompoundResponseSerializer(responseSerializers: [XMLDocumentResponseSerializer(), JSONResponseSerializer()])
        let json = try #require(Support.response(contentType: "application/json"))
        #expect(try compound.responseObject(for: json, data: Data("[1,2]".utf8)) as? [Int] == [1, 2])
        let xml = try #require(Support.response(contentType: "text/xml"))
        #expect(try compound.responseObject(for: xml, data: Data("<a/>".utf8)) is XMLDocument)
        let raw = CompoundResponseSerializer(responseSerializers: [HTTPResponseSerializer(), JSONResponseSerializer()])
        #expect(try raw.responseObject(for: json, data: Data("[1]".utf8)) is Data)
    }

    @Test func compoundThrowsTheFirstErrorWhenAllFail() throws {
        let compound = CompoundResponseSerializer(responseSerializers: [XMLDocumentResponseSerializer(), JSONResponseSerializer()])
        let html = try #require(Support.response(contentType: "text/html"))
        #expect {
            try compound.responseObject(for: html, data: Data("<p>".utf8))
        } throws: { error in
            guard case .unacceptableContentType(_, let acceptable, _, _)? = error as? ResponseSerializationError else { return false }
            return acceptable == ["application/xml", "text/xml"]
        }
        let empty = CompoundResponseSerializer(responseSerializers: [])
        #expect(try empty.responseObject(for: html, data: Data("x".utf8)) as? Data == Data("x".utf8))
    }

    struct Item: Decodable, Equatable { var id: Int; var createdAt: String }

    @Test func decodableWithAConfiguredDecoder() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let serializer = DecodableResponseSerializer<[Item]>(decoder: decoder)
        let response = try #require(Support.response(contentType: "application/json; charset=utf-8"))
        let items = try serializer.decodedObject(for: response, data: Data(#"[{"id":1,"created_at":"today"}]"#.utf8))
        #expect(items == [Item(id: 1, createdAt: "today")])
        #expect(try serializer.responseObject(for: response, data: Data("[]".utf8)) as? [Item] == [])
    }

    @Test func decodableErrors() throws {
        let serializer = DecodableResponseSerializer<Item>()
        let response = try #require(Support.response())
        let wrong = Data(#"{"id":"x"}"#.utf8)
        #expect {
            try serializer.decodedObject(for: response, data: wrong)
        } throws: { error in
            guard case .decodingFailed(_, _, let data)? = error as? ResponseSerializationError else { return false }
            return data == wrong
        }
        #expect(throws: ResponseSerializationError.self) { try serializer.decodedObject(for: response, data: Data()) }
        let failed = try #require(Support.response(status: 422))
        #expect {
            try serializer.decodedObject(for: failed, data: Data(#"{"id":1,"createdAt":"x"}"#.utf8))
        } throws: { error in
            guard case .unacceptableStatusCode(422, _, _)? = error as? ResponseSerializationError else { return false }
            return true
        }
    }
}

@Suite("Content-Type and charset parsing")
struct MediaTypeTests {
    @Test func parsesTypeSubtypeAndParameters() throws {
        let media = try #require(MediaType(parsing: "  Text/HTML ; Charset=\"UTF-8\" ;boundary=abc; q=0.5"))
        #expect(media.mimeType == "text/html")
        #expect(media.charset == "UTF-8")
        #expect(media.parameters["boundary"] == "abc")
        #expect(media.parameters["q"] == "0.5")
    }

    @Test func quotedStringsWithEscapes() throws {
        let media = try #require(MediaType(parsing: #"multipart/form-data; boundary="a \"b\" ; c""#))
        #expect(media.parameters["boundary"] == #"a "b" ; c"#)
    }

    @Test func malformedParametersKeepTheMediaType() throws {
        let media = try #require(MediaType(parsing: "application/json; charset"))
        #expect(media.mimeType == "application/json")
        #expect(media.charset == nil)
        let unclosed = try #require(MediaType(parsing: "text/plain; charset=\"utf-8"))
        #expect(unclosed.charset == nil)
        let first = try #require(MediaType(parsing: "text/plain; charset=a; charset=b;;"))
        #expect(first.charset == "a")
    }

    @Test(arguments: ["", "text", "text/", "/json", " /x", "te xt/plain", "text/plain/x"])
    func rejectsInvalidMediaTypes(value: String) {
        if value == "text/plain/x" {
            // Trailing garbage after a valid type/subtype is tolerated (ignored), like browsers do.
            #expect(MediaType(parsing: value)?.mimeType == "text/plain")
        } else {
            #expect(MediaType(parsing: value) == nil)
        }
    }

    @Test func charsetNames() {
        #expect(CharsetDecoding.encoding(forCharset: "UTF-8") == .utf8)
        #expect(CharsetDecoding.encoding(forCharset: "latin1") == .isoLatin1)
        #expect(CharsetDecoding.encoding(forCharset: " ISO-8859-1 ") == .isoLatin1)
        #expect(CharsetDecoding.encoding(forCharset: "windows-1252") == .windowsCP1252)
        #expect(CharsetDecoding.encoding(forCharset: "UTF-16LE") == .utf16LittleEndian)
        #expect(CharsetDecoding.encoding(forCharset: "klingon") == nil)
    }

    @Test func decodingHonoursByteOrderMarksAndCharsets() {
        #expect(CharsetDecoding.decode(Data([0xEF, 0xBB, 0xBF, 0x68, 0x69]), charset: "iso-8859-1") == "hi")
        #expect(CharsetDecoding.decode(Data([0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00]), charset: nil) == "hé")
        #expect(CharsetDecoding.decode(Data([0xFE, 0xFF, 0x00, 0x68, 0x00, 0xE9]), charset: "utf-8") == "hé")
        #expect(CharsetDecoding.decode(Data([0x00, 0x68, 0x00, 0xE9]), charset: "utf-16") == "hé")
        #expect(CharsetDecoding.decode(Data([0x68, 0x00, 0xE9, 0x00]), charset: "utf-16le") == "hé")
        #expect(CharsetDecoding.decode(Data([0x63, 0xE9]), charset: "ISO-8859-1") == "cé")
        #expect(CharsetDecoding.decode(Data([0x63, 0xE9]), charset: nil) == nil)
        // An unsupported charset is not decoded with the default encoding (see CharsetDecodingTests).
        #expect(CharsetDecoding.decode(Data([0x63, 0xE9]), charset: "unknown", defaultEncoding: .isoLatin1) == nil)
        #expect(CharsetDecoding.decode(Data("😀".utf8), charset: "utf-8") == "😀")
    }
}
