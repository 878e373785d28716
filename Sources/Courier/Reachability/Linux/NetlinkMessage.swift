#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// One netlink message: the `nlmsghdr` fields and the payload that follows the header.
struct NetlinkMessage: Sendable, Equatable {
    static let headerSize = 16

    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    var portID: UInt32
    var payload: [UInt8]

    init(type: UInt16, flags: UInt16, sequence: UInt32, portID: UInt32 = 0, payload: [UInt8]) {
        self.type = type
        self.flags = flags
        self.sequence = sequence
        self.portID = portID
        self.payload = payload
    }

    /// The wire form: header with `nlmsg_len`, then the payload, padded to four bytes.
    var encoded: [UInt8] {
        var writer = NetlinkByteWriter()
        writer.write(UInt32(NetlinkMessage.headerSize + payload.count))
        writer.write(type)
        writer.write(flags)
        writer.write(sequence)
        writer.write(portID)
        writer.write(payload)
        writer.alignToFour()
        return writer.bytes
    }

    /// Splits a datagram received from a netlink socket into its messages.
    static func parseAll(_ buffer: [UInt8]) throws(NetlinkParseError) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        var offset = 0
        while buffer.count - offset >= headerSize {
            let reader = NetlinkByteReader(buffer[offset...])
            guard let length = reader.read(UInt32.self, at: 0).map(Int.init),
                  let type = reader.read(UInt16.self, at: 4),
                  let flags = reader.read(UInt16.self, at: 6),
                  let sequence = reader.read(UInt32.self, at: 8),
                  let portID = reader.read(UInt32.self, at: 12)
            else { throw .truncated }
            guard length >= headerSize, length <= buffer.count - offset else { throw .badLength }
            let payload = Array(buffer[(offset + headerSize)..<(offset + length)])
            messages.append(NetlinkMessage(type: type, flags: flags, sequence: sequence, portID: portID, payload: payload))
            offset += Netlink.aligned(length)
        }
        guard offset >= buffer.count else { throw .truncated }
        return messages
    }

    /// For an `NLMSG_ERROR` message: the (non-positive) error code, `0` being an acknowledgement.
    func errorCode() throws(NetlinkParseError) -> Int32 {
        guard type == Netlink.MessageType.error else { throw .unexpectedType(type) }
        guard let code = NetlinkByteReader(payload[...]).read(Int32.self, at: 0) else { throw .truncated }
        return code
    }
}
#endif
