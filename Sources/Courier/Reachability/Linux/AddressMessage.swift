#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// An `ifaddrmsg` with its attributes: one address assigned to an interface.
struct AddressMessage: Sendable, Equatable {
    static let bodySize = 8

    var family: UInt8
    var prefixLength: UInt8
    var interfaceIndex: Int32
    var attributes: [NetlinkAttribute]

    /// The `RTM_GETADDR` dump request for every address of one family.
    static func dump(family: ReachabilityAddress.Family, sequence: UInt32) -> NetlinkMessage {
        var writer = NetlinkByteWriter()
        writer.write(UInt8(family.addressFamily))
        writer.write([0, 0, 0])  // prefixlen, flags, scope
        writer.write(UInt32(0))  // ifa_index
        return NetlinkMessage(
            type: Netlink.MessageType.getAddress, flags: Netlink.Flag.request | Netlink.Flag.dump,
            sequence: sequence, payload: writer.bytes)
    }

    /// Decodes an `RTM_NEWADDR` message.
    init(_ message: NetlinkMessage) throws(NetlinkParseError) {
        guard message.type == Netlink.MessageType.newAddress else { throw .unexpectedType(message.type) }
        let reader = NetlinkByteReader(message.payload[...])
        guard let family = reader.read(UInt8.self, at: 0),
              let prefix = reader.read(UInt8.self, at: 1),
              let index = reader.read(UInt32.self, at: 4),
              message.payload.count >= Self.bodySize
        else { throw .truncated }
        self.family = family
        prefixLength = prefix
        interfaceIndex = Int32(bitPattern: index)
        attributes = try NetlinkAttribute.parseAll(message.payload.dropFirst(Self.bodySize))
    }

    /// `IFA_LOCAL` when present (point-to-point links), else `IFA_ADDRESS`.
    var address: ReachabilityAddress? {
        let raw = attributes.value(of: Netlink.AddressAttribute.local) ?? attributes.value(of: Netlink.AddressAttribute.address)
        guard let raw else { return nil }
        return ReachabilityAddress(family: raw.count == 4 ? .v4 : .v6, bytes: raw)
    }
}
#endif
