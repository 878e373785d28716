import Foundation
import Testing
@testable import Courier

/// `HTTPDate`: the three HTTP date formats and the variants cookies carry, and dates that do not exist.
@Suite("HTTP dates")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    static let example: TimeInterval = 784_111_777

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",   // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
        "Sun Nov  6 08:49:37 1994",        // asctime
        "sun, 6-nov-1994 8:49:37 gmt",     // a cookie's lenient variant
        "Sun, 06 Nov 1994 08:49:37",
    ])
    func everyFormatGivesTheSameInstant(text: String) {
        #expect(HTTPDate.parse(text)?.timeIntervalSince1970 == Self.example)
    }

    @Test func twoDigitYearsAndLeapDays() {
        #expect(HTTPDate.parse("Thu, 01-Jan-70 00:00:00 GMT")?.timeIntervalSince1970 == 0)
        #expect(HTTPDate.parse("Wed, 01-Jan-69 00:00:00 GMT")?.timeIntervalSince1970 == 3_124_224_000)   // 2069
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 12:00:00 GMT")?.timeIntervalSince1970 == 951_825_600)
        #expect(HTTPDate.parse("Sat, 01 Jan 1601 00:00:00 GMT")?.timeIntervalSince1970 == -11_644_473_600)
    }

    @Test(arguments: [
        "", "0", "yesterday", "Sun, 06 Nov 1994", "Thu, 29 Feb 2001 12:00:00 GMT", "Mon, 31 Apr 2024 00:00:00 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1600 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:373 GMT", "Sun, 006 Nov 1994 08:49:37 GMT",
    ])
    func datesThatDoNotExistAreNil(text: String) {
        #expect(HTTPDate.parse(text) == nil, "\(text)")
    }
}
