import Foundation
import Testing
@testable import courier

/// `--connect-to`'s four fields, as curl writes them (#36, item 8).
@Suite("courier --connect-to entries", .timeLimit(.minutes(1)))
struct ConnectToParsingTests {
    @Test func entriesAreReadAsCurlWritesThem() throws {
        #expect(try NetworkOptions.connection("a.example:443:b.example:").from == "a.example")
        #expect(try NetworkOptions.connection("a.example:443:b.example:").to == "b.example")
        #expect(try NetworkOptions.connection("[::1]:443:[fe80::1]:443").to == "fe80::1")
        #expect(try NetworkOptions.connection("[::1]:443:[fe80::1]:443").from == "::1")
        #expect(try NetworkOptions.connection("a.example:443::443").to == nil)
        #expect(try NetworkOptions.connection("a.example::b.example:").to == "b.example")
        #expect(try NetworkOptions.connection("a.example:443:b.example:8443") == NetworkOptions.Connection(
            from: "a.example", fromPort: 443, to: "b.example", toPort: 8443
        ))
        #expect(try NetworkOptions.connection("[::1]:::8443") == NetworkOptions.Connection(
            from: "::1", fromPort: nil, to: nil, toPort: 8443
        ))
        for bad in ["a.example:443:b.example:0", "a.example:443:b.example:65536", ":443:b.example:", "a.example:443:b.example", "a:x:b:", "a:443:b c:", "[::1:443:b:"] {
            #expect(throws: CLIFailure.self, "\(bad)") { try NetworkOptions.connection(bad) }
        }
    }
}
