import Foundation
import Testing
@testable import Courier

@Suite("Query strings (AFNetworking rules)")
struct QueryStringTests {
    typealias Support = SerializationTestSupport

    @Test func flatKeyValue() throws {
        #expect(try Support.query(["key": "value"]) == "key=value")
    }

    @Test func keysAreSortedAtEveryLevel() throws {
        let parameters: [String: Any] = ["b": "2", "a": ["z": "1", "y": ["d": "4", "c": "3"]], "C": "0"]
        #expect(try Support.query(parameters) == "C=0&a%5By%5D%5Bc%5D=3&a%5By%5D%5Bd%5D=4&a%5Bz%5D=1&b=2")
    }

    @Test func arraysUseEmptyBrackets() throws {
        #expect(try Support.query(["tags": ["b", "a"]]) == "tags%5B%5D=b&tags%5B%5D=a")
    }

    @Test func arraysOfDictionariesAndNestedArrays() throws {
        let parameters: [String: Any] = ["items": [["id": 1, "name": "x"], ["id": 2]], "matrix": [[1, 2], [3]]]
        #expect(try Support.query(parameters) ==
            "items%5B%5D%5Bid%5D=1&items%5B%5D%5Bname%5D=x&items%5B%5D%5Bid%5D=2&matrix%5B%5D%5B%5D=1&matrix%5B%5D%5B%5D=2&matrix%5B%5D%5B%5D=3")
    }

    @Test func setsRepeatTheSameKeyInSortedOrder() throws {
        let parameters: [String: Any] = ["set": Set(["c", "a", "b"])]
        #expect(try Support.query(parameters) == "set=a&set=b&set=c")
        let foundation: [String: Any] = ["set": NSSet(array: ["2", "1"])]
        #expect(try Support.query(foundation) == "set=1&set=2")
    }

    @Test func nullGivesTheBareKey() throws {
        let missing: String? = nil
        let parameters: [String: Any] = ["null": NSNull(), "nil": missing as Any, "present": Optional("x") as Any]
        #expect(try Support.query(parameters) == "nil&null&present=x")
    }

    @Test func numbersAndBooleans() throws {
        let parameters: [String: Any] = [
            "int": 42, "negative": -7, "double": 1.5, "whole": 2.0, "true": true, "false": false,
            "number": NSNumber(value: 3), "large": UInt64.max,
        ]
        #expect(try Support.query(parameters) ==
            "double=1.5&false=0&int=42&large=18446744073709551615&negative=-7&number=3&true=1&whole=2")
    }

    @Test func unicodeAndEmojiAreEscapedAsUTF8() throws {
        #expect(try Support.query(["name": "Zoë"]) == "name=Zo%C3%AB")
        #expect(try Support.query(["emoji": "👨‍👩‍👧🇫🇷é"]) ==
            "emoji=%F0%9F%91%A8%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7%F0%9F%87%AB%F0%9F%87%B7%C3%A9")
        #expect(try Support.query(["日本": "語"]) == "%E6%97%A5%E6%9C%AC=%E8%AA%9E")
    }

    @Test func reservedCharactersInKeysAndValues() throws {
        let value = ":#[]@!$&'()*+,;= /?-._~"
        let expected = "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%20/?-._~"
        #expect(try Support.query(["a&b=c": value]) == "a%26b%3Dc=" + expected)
    }

    @Test func longStringsMatchFoundationEscapingWithoutSplittingCharacters() throws {
        // Composed characters straddling any batch boundary: family emoji, flags, combining marks.
        let unit = "a👨‍👩‍👧‍👦b🇯🇵e\u{301}ü&= "
        let long = String(repeating: unit, count: 400)
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        let expected = try #require(long.addingPercentEncoding(withAllowedCharacters: allowed))
        #expect(try PercentEscaping.escape(long) == expected)
        #expect(try Support.query(["k": long]) == "k=" + expected)
    }

    @Test func nonUTF8StringEncoding() throws {
        #expect(try PercentEscaping.escape("é", encoding: .isoLatin1) == "%E9")
        #expect(throws: RequestSerializationError.self) { try PercentEscaping.escape("€✓", encoding: .isoLatin1) }
    }

    @Test func topLevelMustBeADictionary() {
        #expect(throws: RequestSerializationError.self) { try Support.query(["a", "b"]) }
        #expect(throws: RequestSerializationError.self) { try Support.query("plain") }
    }

    @Test func emptyDictionaryGivesAnEmptyString() throws {
        #expect(try Support.query([String: Any]()) == "")
    }
}

@Suite("Encodable parameters")
struct URLFormEncoderTests {
    struct Address: Encodable { var city: String; var zip: Int }
    struct User: Encodable {
        var name: String
        var admin: Bool
        var score: Double
        var tags: [String]
        var address: Address
        var nickname: String?
    }

    @Test func encodableFollowsTheDictionaryRules() throws {
        let user = User(name: "Zoë & co", admin: true, score: 2.5, tags: ["x", "y"], address: Address(city: "Paris", zip: 75001), nickname: nil)
        let dictionary: [String: Any] = [
            "name": "Zoë & co", "admin": true, "score": 2.5, "tags": ["x", "y"], "address": ["city": "Paris", "zip": 75001],
        ]
        let encoded = try URLFormEncoder().encode(user)
        #expect(encoded == (try SerializationTestSupport.query(dictionary)))
        #expect(encoded == "address%5Bcity%5D=Paris&address%5Bzip%5D=75001&admin=1&name=Zo%C3%AB%20%26%20co&score=2.5&tags%5B%5D=x&tags%5B%5D=y")
    }

    struct ExplicitNil: Encodable {
        enum CodingKeys: String, CodingKey { case value }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeNil(forKey: .value)
        }
    }

    @Test func explicitNilIsTheBareKey() throws {
        #expect(try URLFormEncoder().encode(ExplicitNil()) == "value")
    }

    @Test func topLevelScalarIsRejected() {
        #expect(throws: RequestSerializationError.self) { try URLFormEncoder().encode(42) }
    }

    struct Failing: Encodable {
        struct Boom: Error {}
        func encode(to encoder: any Encoder) throws { throw Boom() }
    }

    @Test func encodingErrorsAreWrapped() {
        #expect(throws: RequestSerializationError.self) { try URLFormEncoder().encode(["x": Failing()]) }
    }
}
