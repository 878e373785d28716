#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// An `ifinfomsg` with its attributes: one network interface as the kernel describes it.
struct LinkMessage: Sendable, Equatable {
    static let bodySize = 16

    var hardwareType: UInt16
    var index: Int32
    var flags: UInt32
    var attributes: [NetlinkAttribute]

    /// The `RTM_GETLINK` request for one interface index.
    static func lookup(index: Int32, sequence: UInt32) -> NetlinkMessage {
        var writer = NetlinkByteWriter()
        writer.write(UInt8(0))  // ifi_family AF_UNSPEC
        writer.write(UInt8(0))  // padding
        writer.write(UInt16(0))  // ifi_type
        writer.write(index)
        writer.write(UInt32(0))  // ifi_flags
        writer.write(UInt32(0))  // ifi_change
        return NetlinkMessage(type: Netlink.MessageType.getLink, flags: Netlink.Flag.request, sequence: sequence, payload: writer.bytes)
    }

    /// Decodes an `RTM_NEWLINK` message.
    init(_ message: NetlinkMessage) throws(NetlinkParseError) {
        guard message.type == Netlink.MessageType.newLink else { throw .unexpectedType(message.type) }
        let reader = NetlinkByteReader(message.payload[...])
        guard let type = reader.read(UInt16.self, at: 2),
              let index = reader.read(Int32.self, at: 4),
              let flags = reader.read(UInt32.self, at: 8),
              message.payload.count >= Self.bodySize
        else { throw .truncated }
        hardwareType = type
        self.index = index
        self.flags = flags
        attributes = try NetlinkAttribute.parseAll(message.payload.dropFirst(Self.bodySize))
    }

    /// `IFLA_IFNAME` without its terminating NUL.
    var name: String? {
        attributes.value(of: Netlink.LinkAttribute.name).map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// `IFLA_OPERSTATE` (`IF_OPER_*`).
    var operationalState: UInt8? { attributes.value(of: Netlink.LinkAttribute.operationalState)?.first }
}
#endif
