#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// Reads host-order integers from a netlink byte buffer without trusting its lengths.
struct NetlinkByteReader {
    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// The integer at `offset` (relative to the start of the slice), or nil past the end.
    func read<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
        let size = MemoryLayout<T>.size
        guard offset >= 0, offset <= bytes.count - size else { return nil }
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { target in
            for index in 0..<size { target[index] = bytes[bytes.startIndex + offset + index] }
        }
        return value
    }
}

/// Appends host-order integers to a netlink byte buffer.
struct NetlinkByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }

    /// Pads with zeros to the 4-byte boundary netlink uses for messages and attributes.
    mutating func alignToFour() {
        bytes.append(contentsOf: [UInt8](repeating: 0, count: Netlink.aligned(bytes.count) - bytes.count))
    }

    /// Overwrites a 4-byte value written earlier (used for the total length field).
    mutating func patch(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }
}

extension Netlink {
    /// `NLMSG_ALIGN` / `RTA_ALIGN`: rounds up to a multiple of four.
    static func aligned(_ length: Int) -> Int { (length + 3) & ~3 }
}
#endif
