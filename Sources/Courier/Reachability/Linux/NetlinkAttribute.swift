#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// One `rtattr`: a type and its value bytes.
struct NetlinkAttribute: Sendable, Equatable {
    static let headerSize = 4

    var type: UInt16
    var value: [UInt8]

    /// The wire form, padded to four bytes.
    var encoded: [UInt8] {
        var writer = NetlinkByteWriter()
        writer.write(UInt16(NetlinkAttribute.headerSize + value.count))
        writer.write(type)
        writer.write(value)
        writer.alignToFour()
        return writer.bytes
    }

    /// Decodes the attributes that fill `bytes` (the part of a message after its fixed body).
    static func parseAll(_ bytes: ArraySlice<UInt8>) throws(NetlinkParseError) -> [NetlinkAttribute] {
        var attributes: [NetlinkAttribute] = []
        var offset = 0
        while bytes.count - offset >= headerSize {
            let reader = NetlinkByteReader(bytes.dropFirst(offset))
            guard let length = reader.read(UInt16.self, at: 0).map(Int.init),
                  let type = reader.read(UInt16.self, at: 2)
            else { throw .truncated }
            guard length >= headerSize, length <= bytes.count - offset else { throw .badLength }
            let start = bytes.startIndex + offset
            // The top two bits are the NLA_F_NESTED / NLA_F_NET_BYTEORDER markers.
            attributes.append(NetlinkAttribute(type: type & 0x3FFF, value: Array(bytes[(start + headerSize)..<(start + length)])))
            offset += Netlink.aligned(length)
        }
        return attributes
    }
}

extension Array where Element == NetlinkAttribute {
    /// The value of the first attribute of `type`.
    func value(of type: UInt16) -> [UInt8]? { first { $0.type == type }?.value }

    /// The first attribute of `type` read as a host-order `UInt32`.
    func uint32(of type: UInt16) -> UInt32? {
        value(of: type).flatMap { NetlinkByteReader($0[...]).read(UInt32.self, at: 0) }
    }
}
#endif
