/// Reads a fuzzer's input in order, for targets that build structured values from it: single bytes, and chunks of
/// at most `maximumChunk` bytes whose length is the byte before them. An input that runs out reads as zeros and
/// empty chunks, so every input describes something.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0
    /// The longest chunk (a length byte is masked to it: use one less than a power of two).
    private let maximumChunk: Int

    public init(_ start: UnsafePointer<UInt8>, count: Int, maximumChunk: Int) {
        bytes = Array(UnsafeBufferPointer(start: start, count: count))
        self.maximumChunk = maximumChunk
    }

    /// The next byte, or `nil` at the end.
    public mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A length byte, then that many bytes (fewer at the end of the input).
    public mutating func chunk() -> [UInt8] {
        let length = Int(byte() ?? 0) & maximumChunk
        let end = min(bytes.count, offset + length)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// A chunk as UTF-8 text: any Unicode can appear, and invalid sequences become U+FFFD.
    public mutating func text() -> String { String(decoding: chunk(), as: UTF8.self) }
}
