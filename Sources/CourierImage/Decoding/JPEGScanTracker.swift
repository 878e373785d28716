/// Follows a JPEG's markers while its bytes arrive, to tell when another scan of a progressive image is complete
/// (the moment a preview can show more than the last one did).
///
/// Hand-written: no maintained Swift package reads JPEG markers, and libjpeg's own reading needs the whole scan
/// in memory to report it. It reads each new byte once: segment lengths are skipped, and a scan's entropy-coded data
/// is searched for the next marker (a `0xFF` that is not a stuffed `0xFF 0x00` or a restart marker), which ends the
/// scan. Every length comes from the data, so each one is checked against what has arrived; data that does not
/// follow the marker syntax stops the tracking (``isMalformed``) and leaves the errors to the decoder.
struct JPEGScanTracker {
    /// Whether the frame header says the image is progressive (SOF2, SOF6, SOF10 or SOF14).
    private(set) var isProgressive = false
    /// Scans whose data has been followed by the next marker.
    private(set) var completedScans = 0
    /// The image's end (EOI) has arrived: the whole image is there, no preview is needed.
    private(set) var reachedEnd = false
    /// The bytes did not follow JPEG's marker syntax; nothing more is tracked.
    private(set) var isMalformed = false

    /// Where reading goes on: the next byte to look at.
    private var offset = 0
    /// Whether `offset` is inside a scan's entropy-coded data.
    private var inScan = false

    /// How many of the `count` bytes read so far a decoder can take as a truncated image: all of them when they end
    /// inside a scan's data (its part of the scan counts), else those before the marker segment that has not all
    /// arrived (libjpeg fails on a segment cut short, but takes the data's end between segments as the image's end).
    func decodableLength(of count: Int) -> Int {
        inScan || reachedEnd || isMalformed ? count : min(offset, count)
    }

    /// Reads the bytes of `data` it has not read yet (`data` is everything that arrived so far, from the start).
    /// - Returns: Whether ``completedScans`` grew.
    @discardableResult
    mutating func advance(over data: UnsafeRawBufferPointer) -> Bool {
        let before = completedScans
        if offset == 0 {
            guard data.count >= 2 else { return false }
            guard data[0] == 0xFF, data[1] == 0xD8 else {
                isMalformed = true
                return false
            }
            offset = 2
        }
        while !isMalformed, !reachedEnd, offset < data.count {
            if inScan {
                guard let marker = nextMarker(in: data, from: offset) else { break }
                offset = marker
                inScan = false
                completedScans += 1
            } else if !readSegment(in: data) {
                break
            }
        }
        return completedScans > before
    }

    /// The offset of the `0xFF` that starts the marker ending a scan, or nil when none has arrived yet (then
    /// `offset` moves to where the search resumes).
    private mutating func nextMarker(in data: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < data.count {
            guard data[index] == 0xFF else {
                index += 1
                continue
            }
            guard index + 1 < data.count else { break }
            let next = data[index + 1]
            switch next {
            case 0x00, 0xD0...0xD7: index += 2  // a stuffed 0xFF, a restart marker: still the scan
            case 0xFF: index += 1  // fill bytes before a marker
            default: return index
            }
        }
        offset = index
        return nil
    }

    /// Reads the marker segment at `offset`; false when it has not all arrived (or is malformed).
    private mutating func readSegment(in data: UnsafeRawBufferPointer) -> Bool {
        guard data[offset] == 0xFF else {
            isMalformed = true
            return false
        }
        guard offset + 1 < data.count else { return false }
        let marker = data[offset + 1]
        switch marker {
        case 0xFF:
            offset += 1  // a fill byte
            return true
        case 0x01, 0xD0...0xD8:
            offset += 2  // markers without a segment
            return true
        case 0xD9:
            reachedEnd = true
            return false
        case 0x00:
            isMalformed = true
            return false
        default:
            break
        }
        guard offset + 3 < data.count else { return false }
        let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
        guard length >= 2 else {
            isMalformed = true
            return false
        }
        let end = offset + 2 + length
        guard end <= data.count else { return false }
        if [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) { isProgressive = true }
        if marker == 0xDA { inScan = true }
        offset = end
        return true
    }
}
