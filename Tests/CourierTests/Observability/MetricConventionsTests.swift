@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The values OpenTelemetry's HTTP client conventions give two dimensions: a method the conventions do not know is
/// `_OTHER` (a made-up method would otherwise make a series of its own), and the protocol version is "1.1" or "2".
@Suite("Metric conventions")
struct MetricConventionsTests {
    @Test("methods: the known ones as they are (any case in), the rest _OTHER")
    func methods() throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/")))
        for (given, named) in [("GET", "GET"), ("post", "POST"), ("PATCH", "PATCH"), ("QUERY", "QUERY"), ("PURGE", "_OTHER"), ("X-Made-Up", "_OTHER")] {
            request.httpMethod = given
            #expect(ExchangeMeasurements.method(of: request) == named)
        }
    }

    @Test("protocol versions: HTTP/1.0, HTTP/1.1, HTTP/2.0, and nothing for what is not one")
    func protocolVersions() {
        #expect(ExchangeMeasurements.protocolVersion("HTTP/1.1") == "1.1")
        #expect(ExchangeMeasurements.protocolVersion("HTTP/1.0") == "1.0")
        #expect(ExchangeMeasurements.protocolVersion("HTTP/2.0") == "2")
        #expect(ExchangeMeasurements.protocolVersion("http/2") == "2")
        #expect(ExchangeMeasurements.protocolVersion("SPDY/3") == nil)
    }
}
