import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

@Suite("HTTPResponseSerializer validation")
struct HTTPResponseSerializerTests {
    typealias Support = SerializationTestSupport

    @Test(arguments: [100, 101, 199, 200, 201, 204, 250, 299, 300, 301, 304, 399, 400, 401, 404, 499, 500, 503, 599])
    func statusCodes(code: Int) throws {
        let serializer = HTTPResponseSerializer()
        let response = try #require(Support.response(status: code, contentType: "text/plain"))
        let body = Data("body".utf8)
        if (200..<300).contains(code) {
            #expect(try serializer.responseObject(for: response, data: body) as? Data == body)
        } else {
            do {
                _ = try serializer.responseObject(for: response, data: body)
                Issue.record("status \(code) was accepted")
            } catch let error as ResponseSerializationError {
                guard case .unacceptableStatusCode(let reported, let carried, let data) = error else {
                    Issue.record("unexpected \(error)"); return
                }
                #expect(reported == code)
                #expect(carried === response)
                #expect(data == body)
                #expect(error.response === response)
                #expect(error.description.contains("\(code)"))
            }
        }
    }

    @Test func customStatusCodesAndNil() throws {
        let serializer = HTTPResponseSerializer()
        serializer.acceptableStatusCodes = IndexSet([404])
        let notFound = try #require(Support.response(status: 404))
        let ok = try #require(Support.response(status: 200))
        #expect(throws: Never.self) { try serializer.validate(response: notFound, data: nil) }
        #expect(throws: ResponseSerializationError.self) { try serializer.validate(response: ok, data: nil) }
        serializer.acceptableStatusCodes = nil
        #expect(throws: Never.self) { try serializer.validate(response: ok, data: nil) }
    }

    @Test(arguments: [
        ("application/json", true), ("application/json; charset=utf-8", true), ("APPLICATION/JSON", true),
        ("text/json", true), ("text/javascript", true), ("text/html", false), ("text/plain", false),
        ("application/jsonx", false), ("json", false), (nil, false),
    ] as [(String?, Bool)])
    func jsonContentTypes(contentType: String?, accepted: Bool) throws {
        let serializer = JSONResponseSerializer()
        let response = try #require(Support.response(contentType: contentType))
        let body = Data("[1]".utf8)
        if accepted {
            #expect(try serializer.responseObject(for: response, data: body) as? [Int] == [1])
        } else {
            do {
                _ = try serializer.responseObject(for: response, data: body)
                Issue.record("\(contentType ?? "nil") was accepted")
            } catch let error as ResponseSerializationError {
                guard case .unacceptableContentType(let type, let acceptable, _, let data) = error else {
                    Issue.record("unexpected \(error)"); return
                }
                #expect(type == contentType.flatMap { MediaType(parsing: $0)?.mimeType })
                #expect(acceptable == ["application/json", "text/json", "text/javascript"])
                #expect(data == body)
            }
        }
    }

    @Test func contentTypeIsOnlyCheckedWhenThereIsABody() throws {
        let serializer = JSONResponseSerializer()
        let html = try #require(Support.response(status: 204, contentType: "text/html"))
        #expect(try serializer.responseObject(for: html, data: nil) == nil)
        #expect(try serializer.responseObject(for: html, data: Data()) == nil)
    }

    @Test func statusIsReportedBeforeContentType() throws {
        let response = try #require(Support.response(status: 500, contentType: "text/html"))
        #expect {
            try JSONResponseSerializer().responseObject(for: response, data: Data("<p>".utf8))
        } throws: { error in
            guard case .unacceptableStatusCode(500, _, _)? = error as? ResponseSerializationError else { return false }
            return true
        }
    }

    @Test func nonHTTPResponsesAreNotValidated() throws {
        let url = try #require(Support.url)
        let response = URLResponse(url: url, mimeType: "text/html", expectedContentLength: 3, textEncodingName: nil)
        #expect(try JSONResponseSerializer().responseObject(for: response, data: Data("[2]".utf8)) as? [Int] == [2])
        #expect(try JSONResponseSerializer().responseObject(for: nil, data: Data("[3]".utf8)) as? [Int] == [3])
    }

    @Test func textUsesTheResponseCharsetThenTheDefault() throws {
        let serializer = HTTPResponseSerializer()
        let latin1 = try #require(Support.response(contentType: "text/plain; charset=ISO-8859-1"))
        #expect(try serializer.string(for: latin1, data: Data([0x63, 0x61, 0x66, 0xE9])) == "café")
        let plain = try #require(Support.response(contentType: "text/plain"))
        #expect(try serializer.string(for: plain, data: Data("café".utf8)) == "café")
        #expect(throws: ResponseSerializationError.self) { try serializer.string(for: plain, data: Data([0xE9])) }
        serializer.stringEncoding = .isoLatin1
        #expect(try serializer.string(for: plain, data: Data([0xE9])) == "é")
    }
}

@Suite("JSON response serializer")
struct JSONResponseSerializerTests {
    typealias Support = SerializationTestSupport

    @Test(arguments: [Data(), Data(" ".utf8)])
    func emptyAndSingleSpaceBodiesAreNil(body: Data) throws {
        let response = try #require(Support.response())
        #expect(try JSONResponseSerializer().responseObject(for: response, data: body) == nil)
    }

    @Test func nilDataIsNil() throws {
        #expect(try JSONResponseSerializer().responseObject(for: Support.response(), data: nil) == nil)
    }

    @Test(arguments: ["{", "  ", "{\"a\":}", "nul", "[1 2]", "{\"a\" 1}"])
    func invalidJSONKeepsTheData(text: String) throws {
        let body = Data(text.utf8)
        let response = try #require(Support.response())
        #expect {
            try JSONResponseSerializer().responseObject(for: response, data: body)
        } throws: { error in
            guard case .invalidJSON(_, let carried, let data)? = error as? ResponseSerializationError else { return false }
            return data == body && carried === response
        }
    }

    @Test func fragmentsNeedTheReadingOption() throws {
        let response = try #require(Support.response())
        let serializer = JSONResponseSerializer()
        #expect(throws: ResponseSerializationError.self) { try serializer.responseObject(for: response, data: Data("\"text\"".utf8)) }
        serializer.readingOptions = [.fragmentsAllowed]
        #expect(try serializer.responseObject(for: response, data: Data("\"text\"".utf8)) as? String == "text")
    }

    @Test func nullRemovalIsRecursiveThroughArrays() throws {
        let body = Data(#"{"a":null,"b":[{"c":null,"d":1},null,[{"e":null,"f":"x"}]],"g":{"h":null,"i":{"j":null}}}"#.utf8)
        let response = try #require(Support.response())
        let keeping = try #require(try JSONResponseSerializer().responseObject(for: response, data: body) as? [String: Any])
        #expect(keeping["a"] is NSNull)
        let serializer = JSONResponseSerializer()
        serializer.removesKeysWithNullValues = true
        let object = try #require(try serializer.responseObject(for: response, data: body) as? [String: Any])
        #expect(object["a"] == nil)
        let b = try #require(object["b"] as? [Any])
        #expect(b.count == 3)
        let first = try #require(b[0] as? [String: Any])
        #expect(Array(first.keys) == ["d"])
        #expect(b[1] is NSNull)
        let nested = try #require((b[2] as? [Any])?.first as? [String: Any])
        #expect(Array(nested.keys) == ["f"])
        let g = try #require(object["g"] as? [String: Any])
        #expect(Array(g.keys) == ["i"])
        #expect((g["i"] as? [String: Any])?.isEmpty == true)
    }

    @Test func latin1BodyIsTranscoded() throws {
        let response = try #require(Support.response(contentType: "application/json; charset=iso-8859-1"))
        let body = Data([0x7B, 0x22, 0x6B, 0x22, 0x3A, 0x22, 0xE9, 0x22, 0x7D])  // {"k":"é"} in Latin-1
        let object = try JSONResponseSerializer().responseObject(for: response, data: body) as? [String: String]
        #expect(object == ["k": "é"])
    }

    @Test func utf16WithByteOrderMarkIsDecoded() throws {
        let response = try #require(Support.response(contentType: "application/json"))
        var littleEndian = Data([0xFF, 0xFE])
        littleEndian.append(try #require("{\"k\":\"ü😀\"}".data(using: .utf16LittleEndian)))
        #expect(try JSONResponseSerializer().responseObject(for: response, data: littleEndian) as? [String: String] == ["k": "ü😀"])
        var bigEndian = Data([0xFE, 0xFF])
        bigEndian.append(try #require("[\"é\"]".data(using: .utf16BigEndian)))
        #expect(try JSONResponseSerializer().responseObject(for: response, data: bigEndian) as? [String] == ["é"])
    }

    @Test func undecodableTextIsAnError() throws {
        let response = try #require(Support.response(contentType: "application/json; charset=utf-16le"))
        #expect(throws: ResponseSerializationError.self) {
            try JSONResponseSerializer().responseObject(for: response, data: Data([0x5B, 0x00, 0x31]))
        }
    }

    /// Every serializer copies as AFNetworking's do (NSCopying): the same class and settings, a separate instance.
    @Test func serializersCopyTheirClassAndSettings() throws {
        let image = ImageResponseSerializer()
        image.imageScale = 2
        let imageCopy = try #require(image.copy() as? ImageResponseSerializer)
        #expect(imageCopy !== image && imageCopy.imageScale == 2)

        let plist = PropertyListResponseSerializer()
        plist.format = .binary
        plist.stringEncoding = .isoLatin1
        let plistCopy = try #require(plist.copy() as? PropertyListResponseSerializer)
        #expect(plistCopy.format == .binary && plistCopy.stringEncoding == .isoLatin1)

        let xml = XMLDocumentResponseSerializer()
        xml.options = [.documentTidyXML]
        #expect((xml.copy() as? XMLDocumentResponseSerializer)?.options == [.documentTidyXML])
        #expect(XMLParserResponseSerializer().copy() is XMLParserResponseSerializer)

        let json = JSONResponseSerializer()
        let compound = CompoundResponseSerializer(responseSerializers: [json])
        compound.acceptableStatusCodes = IndexSet(integer: 201)
        let compoundCopy = try #require(compound.copy() as? CompoundResponseSerializer)
        #expect(compoundCopy !== compound && compoundCopy.acceptableStatusCodes == IndexSet(integer: 201))
        #expect(compoundCopy.responseSerializers.first as? JSONResponseSerializer === json)

        let decoder = JSONDecoder()
        let decodable = DecodableResponseSerializer<[String: Int]>(decoder: decoder)
        decodable.acceptableContentTypes = ["application/vnd.courier+json"]
        let decodableCopy = try #require(decodable.copy() as? DecodableResponseSerializer<[String: Int]>)
        #expect(decodableCopy.decoder === decoder && decodableCopy.acceptableContentTypes == ["application/vnd.courier+json"])
    }
}
