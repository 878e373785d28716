import Foundation

/// Cuts a streamed body (`--stream`) into lines as its chunks arrive, in time linear in the bytes: each chunk is
/// searched for newlines once, and only the unfinished line is kept, appended to, never copied again or rescanned.
///
/// A line longer than ``maximumLineLength`` is not held: its bytes so far, then each chunk of it as it arrives, come
/// out as ``Piece/unformatted(_:)`` up to and including its newline, so that memory stays bounded whatever the body.
struct StreamedLines {
    /// The longest line held to be formatted: 1 MiB. A longer one is passed through as it arrives, unformatted.
    static let maximumLineLength = 1 << 20

    /// What comes out of a chunk.
    enum Piece: Equatable {
        /// A whole line, without its newline: to be formatted (or printed as it is) and ended with a newline.
        case line(Data)
        /// Bytes of a line too long to hold, to be printed as they are (its newline included when it ended).
        case unformatted(Data)
    }

    /// The longest line held (default ``maximumLineLength``).
    let limit: Int
    /// The unfinished line so far (never longer than `limit`).
    private var pending = Data()
    /// Whether the current line outgrew `limit` and is being passed through until its newline.
    private var passingThrough = false

    /// A splitter that holds lines of up to `limit` bytes (default ``maximumLineLength``).
    init(limit: Int = StreamedLines.maximumLineLength) {
        self.limit = max(limit, 1)
    }

    /// The pieces `chunk` completes, in order.
    mutating func append(_ chunk: Data) -> [Piece] {
        var pieces: [Piece] = []
        var start = chunk.startIndex
        if passingThrough {
            guard let newline = chunk.firstIndex(of: UInt8(ascii: "\n")) else {
                if !chunk.isEmpty { pieces.append(.unformatted(chunk)) }
                return pieces
            }
            pieces.append(.unformatted(chunk[start...newline]))
            passingThrough = false
            start = chunk.index(after: newline)
        }
        while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if pending.isEmpty {
                pieces.append(.line(chunk[start..<newline]))
            } else {
                pending.append(chunk[start..<newline])
                pieces.append(.line(pending))
                pending = Data()
            }
            start = chunk.index(after: newline)
        }
        let rest = chunk[start...]
        if pending.count + rest.count > limit {
            // Too long to hold: what there is goes out now, and the rest of the line as it arrives.
            pending.append(rest)
            pieces.append(.unformatted(pending))
            pending = Data()
            passingThrough = true
        } else if !rest.isEmpty {
            pending.append(rest)
        }
        return pieces
    }

    /// The pieces left at the end of the body: the unfinished line, or the newline that ends a line passed through.
    mutating func finish() -> [Piece] {
        defer {
            pending = Data()
            passingThrough = false
        }
        if passingThrough { return [.unformatted(Data("\n".utf8))] }
        return pending.isEmpty ? [] : [.line(pending)]
    }
}
