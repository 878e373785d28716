/// Splits a byte stream into lines at CR, LF or CRLF, the line ends the event-stream format (and, with LF and CRLF,
/// JSON lines) allows, across chunk boundaries (a CR that ends one chunk and an LF that starts the next are one line
/// end). A line is held until it ends, up to `limit` bytes.
struct LineSplitter {
    private var line: [UInt8] = []
    private var afterCR = false
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The lines `chunk` ends, in order, each without its line end.
    /// - Throws: ``StreamingResponseError/lineTooLong(limit:)`` when a line passes `limit` bytes.
    mutating func lines<Bytes: Sequence<UInt8>>(in chunk: Bytes) throws(StreamingResponseError) -> [[UInt8]] {
        var ended: [[UInt8]] = []
        for byte in chunk {
            switch byte {
            case UInt8(ascii: "\n") where afterCR:
                afterCR = false   // the LF of a CRLF whose CR already ended the line
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                ended.append(line)
                line.removeAll(keepingCapacity: true)
                afterCR = byte == UInt8(ascii: "\r")
            default:
                afterCR = false
                guard line.count < limit else { throw .lineTooLong(limit: limit) }
                line.append(byte)
            }
        }
        return ended
    }

    /// The bytes of a line the stream ended without ending (JSON lines may end without a final LF; an event stream
    /// discards them).
    var unfinished: [UInt8] { line }
}
