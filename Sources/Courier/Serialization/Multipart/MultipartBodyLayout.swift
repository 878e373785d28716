import Foundation

/// The body of a multipart form as a sequence of segments: the boundaries and headers (small,
/// in memory) alternate with the parts' bodies (data, files, streams).
///
/// Wire format, for parts P1…Pn and boundary B:
/// `--B\r\n<headers P1>\r\n<body P1>\r\n--B\r\n<headers P2>\r\n<body P2>…\r\n--B--\r\n`,
/// each header written `Name: value\r\n`, with any CR or LF in the name or value written `%0D` or `%0A` (as
/// ``MultipartPart/contentDisposition(name:fileName:)`` writes them in names), so that no header given to a form can
/// end its line, or the part's headers, early.
struct MultipartBodyLayout {
    enum Segment {
        case bytes(Data)
        case file(URL, length: Int64)
        case stream(InputStream, length: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let data): return Int64(data.count)
            case .file(_, let length), .stream(_, let length): return length
            }
        }
    }

    let segments: [Segment]
    /// The parts the segments were made from, in order.
    let parts: [MultipartPart]

    /// The exact number of bytes of the body.
    var contentLength: Int64 { segments.reduce(0) { $0 + $1.length } }

    init(boundary: String, parts: [MultipartPart]) {
        self.parts = parts
        var segments: [Segment] = []
        for (index, part) in parts.enumerated() {
            var prefix = index == 0 ? "--\(boundary)\r\n" : "\r\n--\(boundary)\r\n"
            for header in part.headers { prefix += "\(Self.withoutLineBreaks(header.name)): \(Self.withoutLineBreaks(header.value))\r\n" }
            prefix += "\r\n"
            segments.append(.bytes(Data(prefix.utf8)))
            switch part.source {
            case .data(let data): segments.append(.bytes(data))
            case .file(let url): segments.append(.file(url, length: part.length))
            case .stream(let stream): segments.append(.stream(stream, length: part.length))
            }
        }
        if !parts.isEmpty { segments.append(.bytes(Data("\r\n--\(boundary)--\r\n".utf8))) }
        self.segments = segments
    }

    /// `text` with every CR written `%0D` and every LF `%0A`.
    static func withoutLineBreaks(_ text: String) -> String {
        MultipartPart.percentEscaped(text, quotes: false)
    }
}

/// The read position in a sequence of segments of known lengths: a pure value, moved by the
/// body stream as bytes are produced.
struct MultipartBodyCursor: Equatable, Sendable {
    let lengths: [Int64]
    private(set) var segment = 0
    private(set) var offset: Int64 = 0
    private(set) var produced: Int64 = 0

    init(lengths: [Int64]) {
        self.lengths = lengths
        skipFinishedSegments()
    }

    var isAtEnd: Bool { segment >= lengths.count }

    /// Bytes left in the current segment, at most `limit`.
    func readable(limit: Int) -> Int {
        guard !isAtEnd else { return 0 }
        return Int(min(Int64(limit), lengths[segment] - offset))
    }

    /// Moves forward by `count` bytes of the current segment; returns true when that finished
    /// the segment.
    @discardableResult
    mutating func advance(by count: Int) -> Bool {
        guard !isAtEnd, count > 0 else { return false }
        offset += Int64(count)
        produced += Int64(count)
        guard offset >= lengths[segment] else { return false }
        segment += 1
        offset = 0
        skipFinishedSegments()
        return true
    }

    private mutating func skipFinishedSegments() {
        while segment < lengths.count, lengths[segment] == 0 { segment += 1 }
    }
}
