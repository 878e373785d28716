#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// An `rtmsg` with its attributes: the question "how would you send to this address?" and the
/// kernel's answer.
struct RouteMessage: Sendable, Equatable {
    static let bodySize = 12

    var family: UInt8
    var destinationPrefixLength: UInt8
    var routeType: UInt8
    var attributes: [NetlinkAttribute]

    /// The `RTM_GETROUTE` request for one destination (no packet is sent; the kernel only looks
    /// the route up).
    static func lookup(_ destination: ReachabilityAddress, sequence: UInt32) -> NetlinkMessage {
        var writer = NetlinkByteWriter()
        writer.write(UInt8(destination.family.addressFamily))
        writer.write(UInt8(destination.bytes.count * 8))  // rtm_dst_len
        writer.write([0, 0, 0, 0, 0, 0])  // src_len, tos, table, protocol, scope, type
        writer.write(UInt32(0))  // rtm_flags
        writer.write(NetlinkAttribute(type: Netlink.RouteAttribute.destination, value: destination.bytes).encoded)
        return NetlinkMessage(type: Netlink.MessageType.getRoute, flags: Netlink.Flag.request, sequence: sequence, payload: writer.bytes)
    }

    /// Decodes an `RTM_NEWROUTE` message.
    init(_ message: NetlinkMessage) throws(NetlinkParseError) {
        guard message.type == Netlink.MessageType.newRoute else { throw .unexpectedType(message.type) }
        let reader = NetlinkByteReader(message.payload[...])
        guard let family = reader.read(UInt8.self, at: 0),
              let prefix = reader.read(UInt8.self, at: 1),
              let type = reader.read(UInt8.self, at: 7),
              message.payload.count >= Self.bodySize
        else { throw .truncated }
        self.family = family
        destinationPrefixLength = prefix
        routeType = type
        attributes = try NetlinkAttribute.parseAll(message.payload.dropFirst(Self.bodySize))
    }

    /// The interface index packets would leave through (`RTA_OIF`).
    var outputInterface: Int32? { attributes.uint32(of: Netlink.RouteAttribute.outputInterface).map { Int32(bitPattern: $0) } }

    /// Unicast and local routes deliver; blackhole, unreachable, prohibit and throw routes do not.
    var delivers: Bool { routeType == Netlink.RouteType.unicast || routeType == Netlink.RouteType.local }
}
#endif
