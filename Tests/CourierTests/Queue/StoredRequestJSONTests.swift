import Courier
import CourierQueue
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stores' hand-written JSON of a request (`StoredRequestJSON`) reads back through `JSONDecoder` as the request
/// it was made from, for the strings a request can hold: quotes, backslashes, every control character, non-ASCII
/// text, and random Unicode.
@Suite("StoredRequestJSON")
struct StoredRequestJSONTests {
    private func request(url: URL?, method: String?, headers: [String: String], body: Data?, timeoutInterval: TimeInterval) -> OperationArchive.Request {
        var request = OperationArchive.Request(URLRequest(url: URL(fileURLWithPath: "/")))
        request.url = url
        request.method = method
        request.headers = headers
        request.body = body
        request.timeoutInterval = timeoutInterval
        return request
    }

    private func roundTrip(_ request: OperationArchive.Request) throws -> OperationArchive.Request {
        try JSONDecoder().decode(OperationArchive.Request.self, from: try StoredRequestJSON.encode(request))
    }

    @Test("requests with every kind of field read back as they were")
    func requestsReadBack() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let cases: [OperationArchive.Request] = [
            request(url: URL(string: "http://127.0.0.1:8080/anything?a=1&b=%22x%22"), method: "POST",
                  headers: ["Idempotency-Key": "\"a4f1\"", "Content-Type": "application/json"], body: nil, timeoutInterval: 60),
            request(url: URL(string: "https://example.com/p%C3%A4th/ü?q=\\"), method: nil,
                  headers: [:], body: Data([0, 1, 2, 255]), timeoutInterval: 0.25),
            request(url: nil, method: "PATCH", headers: ["X-Odd": "quote \" backslash \\ tab \t newline \n" + controls,
                                                          "X-Ünïcode": "日本語 🚀 \u{7F} \u{2028}"], body: Data(), timeoutInterval: 0),
            request(url: URL(string: "http://h/"), method: "GET", headers: ["A": ""], body: nil, timeoutInterval: 1e9),
        ]
        for request in cases {
            #expect(try roundTrip(request) == request)
        }
    }

    @Test("random header values of any Unicode scalars read back as they were")
    func randomStringsReadBack() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let length = Int.random(in: 0...24, using: &generator)
            let scalars = (0..<length).compactMap { _ -> Unicode.Scalar? in
                // Mostly ASCII (control characters included), some of the rest of the code space.
                let value = Bool.random(using: &generator) ? UInt32.random(in: 0..<0x80, using: &generator)
                                                           : UInt32.random(in: 0x80...0x10FFFF, using: &generator)
                return Unicode.Scalar(value)
            }
            let text = String(String.UnicodeScalarView(scalars))
            let request = self.request(url: URL(string: "http://127.0.0.1/"), method: "POST",
                                        headers: [text: text + "\u{0}"], body: nil, timeoutInterval: 30)
            #expect(try roundTrip(request) == request, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
