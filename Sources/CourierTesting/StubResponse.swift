import Foundation

/// What a ``StubTransport`` answers to one request: a status, header fields and a body, after an optional delay —
/// or a failure.
public struct StubResponse: Sendable {
    /// The status code. Default 200.
    public var statusCode: Int
    /// The header fields in order. A `Content-Length` is added for a body of known length unless given here.
    public var headers: [(name: String, value: String)]
    /// The body. Default empty.
    public var body: StubBody
    /// How long the head takes to arrive. Default zero.
    public var delay: Duration
    /// When set, the request fails with this error (after ``delay``) instead of answering. Default `nil`.
    public var failure: URLError.Code?
    /// The protocol version reported. Default `"HTTP/1.1"`.
    public var httpVersion: String

    /// Creates an answer.
    /// - Parameters:
    ///   - statusCode: The status code. Default 200.
    ///   - headers: The header fields. Default none.
    ///   - body: The body. Default ``StubBody/empty``.
    ///   - delay: How long the head takes. Default zero.
    ///   - httpVersion: The protocol version. Default `"HTTP/1.1"`.
    public init(
        statusCode: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: StubBody = .empty,
        delay: Duration = .zero,
        httpVersion: String = "HTTP/1.1"
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.delay = delay
        self.failure = nil
        self.httpVersion = httpVersion
    }

    /// A JSON answer from its text, with `Content-Type: application/json`.
    /// - Parameters:
    ///   - json: The JSON text.
    ///   - statusCode: The status code. Default 200.
    public static func json(_ json: String, statusCode: Int = 200) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: [("Content-Type", "application/json")], body: .data(Data(json.utf8)))
    }

    /// A JSON answer encoding `value`, with `Content-Type: application/json`.
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - statusCode: The status code. Default 200.
    ///   - encoder: The encoder. Default `JSONEncoder()`.
    /// - Throws: The encoder's error.
    public static func json<Value: Encodable>(
        encoding value: Value, statusCode: Int = 200, encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(statusCode: statusCode, headers: [("Content-Type", "application/json")], body: .data(try encoder.encode(value)))
    }

    /// A plain-text answer, with `Content-Type: text/plain; charset=utf-8`.
    /// - Parameters:
    ///   - text: The body.
    ///   - statusCode: The status code. Default 200.
    public static func text(_ text: String, statusCode: Int = 200) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .data(Data(text.utf8)))
    }

    /// A redirect to `location` (absolute or relative to the request's URL).
    /// - Parameters:
    ///   - location: The `Location` value.
    ///   - statusCode: The status code. Default 302.
    public static func redirect(to location: String, statusCode: Int = 302) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: [("Location", location)])
    }

    /// A failure instead of an answer: `URLError(code)` with the request's URL, as the real transport reports it
    /// (for example `.timedOut`, `.cannotConnectToHost`, `.networkConnectionLost`, `.secureConnectionFailed`,
    /// `.serverCertificateUntrusted`, `.badServerResponse`).
    /// - Parameters:
    ///   - code: The error code.
    ///   - delay: How long until it fails. Default zero.
    public static func failure(_ code: URLError.Code, after delay: Duration = .zero) -> StubResponse {
        var response = StubResponse(delay: delay)
        response.failure = code
        return response
    }
}

/// The body of a ``StubResponse``: bytes at once, or chunks over time that may end in a failure.
public struct StubBody: Sendable {
    /// The chunks in order.
    public let chunks: [Data]
    /// The pause before each chunk after the first.
    public let interval: Duration
    /// When set, the body fails with this error after its chunks.
    public let failure: URLError.Code?

    /// No body.
    public static let empty = StubBody(chunks: [], interval: .zero, failure: nil)

    /// A body sent in one chunk.
    public static func data(_ data: Data) -> StubBody {
        StubBody(chunks: data.isEmpty ? [] : [data], interval: .zero, failure: nil)
    }

    /// A streamed body: `chunks` with `interval` between them, then the end — or `URLError(failure)`, as when a
    /// connection drops mid-body (`.networkConnectionLost`) or goes quiet (`.timedOut`).
    /// - Parameters:
    ///   - chunks: The chunks.
    ///   - interval: The pause before each chunk after the first. Default zero.
    ///   - failure: The error after the last chunk. Default `nil`: the body ends normally.
    public static func chunks(_ chunks: [Data], every interval: Duration = .zero, thenFail failure: URLError.Code? = nil) -> StubBody {
        StubBody(chunks: chunks, interval: interval, failure: failure)
    }

    /// The length when the body ends normally, else `nil` (sent without a `Content-Length`).
    var knownLength: Int? {
        guard failure == nil, interval == .zero else { return nil }
        return chunks.reduce(0) { $0 + $1.count }
    }
}
