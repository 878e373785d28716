/// Which bytes of a `courier download --split` file are where: the file cut into segments, each fetched over its own
/// connection with `Range`, and what of each is on disk. A pure value (the shell, ``SplitDownload``, keeps it under
/// one lock and does the I/O); Codable, so an interrupted split download resumes each segment where it stopped.
///
/// Work stealing, as aria2c does it: a connection whose segment is done takes the next segment nobody fetches, and
/// when there is none it halves the segment with the most bytes still to come, if that leaves both halves at least
/// ``minimumSize``; the owner of the halved segment stops at the new end.
///
/// Each segment keeps two counts: `written`, the bytes on disk (the only ones a saved record claims), and `claimed`,
/// the bytes handed to a writer (so that a steal never splits below what is being written).
struct SegmentPlan: Codable, Equatable, Sendable {
    /// One contiguous run of the file's bytes.
    struct Segment: Codable, Equatable, Sendable {
        /// The first byte's offset in the file.
        var start: Int64
        /// One past the last byte; a steal lowers it.
        var end: Int64
        /// The bytes from ``start`` on disk.
        var written: Int64
        /// The bytes from ``start`` handed to a writer: `written <= claimed <= end - start`. Not saved.
        var claimed: Int64
        /// Whether a connection fetches this segment. Not saved.
        var isAssigned = false

        private enum CodingKeys: String, CodingKey { case start, end, written }

        init(start: Int64, end: Int64, written: Int64 = 0) {
            self.start = start
            self.end = end
            self.written = written
            claimed = written
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                start: try container.decode(Int64.self, forKey: .start),
                end: try container.decode(Int64.self, forKey: .end),
                written: try container.decode(Int64.self, forKey: .written)
            )
        }

        /// Bytes not yet handed to a writer.
        var unclaimed: Int64 { end - start - claimed }
        /// Whether all its bytes are on disk.
        var isComplete: Bool { written == end - start }
    }

    /// A saved plan that does not describe a file: segments that overlap, leave gaps or lie outside it.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// The file's length in bytes.
    let length: Int64
    /// The least bytes a segment is cut to (`--min-split-size`).
    let minimumSize: Int64
    /// The segments, in the order they were made (a steal appends).
    private(set) var segments: [Segment]

    /// A fresh plan: `length` bytes in `connections` equal segments, fewer when a segment would be smaller than
    /// `minimumSize` (at least one).
    init(length: Int64, connections: Int, minimumSize: Int64) {
        precondition(length > 0 && connections > 0 && minimumSize > 0, "SegmentPlan needs a length, connections and a size")
        self.length = length
        self.minimumSize = minimumSize
        let count = Int64(max(1, min(Int64(connections), length / minimumSize)))
        let size = length / count
        segments = (0..<count).map { index in
            Segment(start: index * size, end: index == count - 1 ? length : (index + 1) * size)
        }
    }

    private enum CodingKeys: String, CodingKey { case length, minimumSize, segments }

    /// Decodes a saved plan and checks it describes the file: segments that, in order of their starts, run from 0 to
    /// ``length`` without gaps or overlaps, each with `0 <= written <= end - start`.
    /// - Throws: ``Invalid``, or the decoder's errors.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        length = try container.decode(Int64.self, forKey: .length)
        minimumSize = try container.decode(Int64.self, forKey: .minimumSize)
        segments = try container.decode([Segment].self, forKey: .segments)
        guard length > 0, minimumSize > 0, !segments.isEmpty else { throw Invalid(description: "no bytes, or no segments") }
        var next: Int64 = 0
        for segment in segments.sorted(by: { $0.start < $1.start }) {
            guard segment.start == next, segment.end > segment.start, segment.end <= length,
                  segment.written >= 0, segment.written <= segment.end - segment.start
            else { throw Invalid(description: "a segment \(segment.start)..<\(segment.end) (\(segment.written) written) does not follow \(next)") }
            next = segment.end
        }
        guard next == length else { throw Invalid(description: "the segments end at \(next), not at \(length)") }
    }

    /// The bytes on disk.
    var written: Int64 { segments.reduce(0) { $0 + $1.written } }
    /// Whether every byte is on disk.
    var isComplete: Bool { segments.allSatisfy(\.isComplete) }

    /// The byte range a connection assigned to segment `index` asks for next: from its first byte not on disk to
    /// its last, inclusive (a `Range: bytes=first-last`).
    func pendingRange(of index: Int) -> (first: Int64, last: Int64) {
        let segment = segments[index]
        return (segment.start + segment.written, segment.end - 1)
    }

    /// Gives a connection a segment: the first one nobody fetches that has bytes to come, else half of the assigned
    /// segment with the most unclaimed bytes when both halves keep ``minimumSize``; `nil` when there is nothing left
    /// to take.
    mutating func assign() -> Int? {
        if let index = segments.indices.first(where: { !segments[$0].isAssigned && !segments[$0].isComplete }) {
            segments[index].isAssigned = true
            // Bytes claimed but not written by a connection that failed are asked for again.
            segments[index].claimed = segments[index].written
            return index
        }
        guard let largest = segments.indices.filter({ segments[$0].isAssigned }).max(by: { segments[$0].unclaimed < segments[$1].unclaimed }),
              segments[largest].unclaimed >= 2 * minimumSize
        else { return nil }
        let victim = segments[largest]
        let middle = victim.start + victim.claimed + victim.unclaimed / 2
        segments[largest].end = middle
        var stolen = Segment(start: middle, end: victim.end)
        stolen.isAssigned = true
        segments.append(stolen)
        return segments.count - 1
    }

    /// Hands up to `count` bytes of segment `index` to its writer and returns how many: fewer (down to 0) where the
    /// segment ends, for instance after a steal lowered its end.
    mutating func claim(_ index: Int, upTo count: Int64) -> Int64 {
        let granted = min(count, segments[index].unclaimed)
        segments[index].claimed += granted
        return granted
    }

    /// Records that `count` claimed bytes of segment `index` reached the disk.
    mutating func confirm(_ index: Int, _ count: Int64) {
        segments[index].written = min(segments[index].written + count, segments[index].claimed)
    }

    /// The connection fetching segment `index` lets it go (done, failed or stopped): its claimed but unwritten bytes
    /// are free again.
    mutating func release(_ index: Int) {
        segments[index].isAssigned = false
        segments[index].claimed = segments[index].written
    }
}
