/// libFuzzer entry point: the input is one datagram as a netlink socket would deliver it (a route socket of the
/// reachability monitor). Every message is decoded as the monitor decodes it: link, address and route messages,
/// error codes and the attributes the monitor reads. A message that decodes re-encodes to the same message, and
/// the whole datagram never yields more messages than 16-byte headers fit in it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let buffer = Array(UnsafeBufferPointer(start: start, count: count))
    guard let messages = try? NetlinkMessage.parseAll(buffer) else { return 0 }
    precondition(messages.count <= buffer.count / NetlinkMessage.headerSize, "more messages than headers fit")
    for message in messages {
        let again = try? NetlinkMessage.parseAll(message.encoded)
        precondition(again == [message], "a message that does not survive its own encoding")
        _ = try? message.errorCode()
        if let link = try? LinkMessage(message) {
            _ = link.name
            _ = link.operationalState
            checkAttributes(link.attributes, in: message, after: LinkMessage.bodySize)
        }
        if let address = try? AddressMessage(message) {
            if let found = address.address {
                precondition(found.bytes.count == 4 || found.bytes.count == 16, "an address of \(found.bytes.count) bytes")
            }
            checkAttributes(address.attributes, in: message, after: AddressMessage.bodySize)
        }
        if let route = try? RouteMessage(message) {
            _ = route.outputInterface
            _ = route.delivers
            checkAttributes(route.attributes, in: message, after: RouteMessage.bodySize)
        }
    }
    return 0
}

/// The attributes decoded from a message's payload fit in it and carry only the type bits (no flag bits).
private func checkAttributes(_ attributes: [NetlinkAttribute], in message: NetlinkMessage, after bodySize: Int) {
    let available = message.payload.count - bodySize
    var used = 0
    for attribute in attributes {
        precondition(attribute.type & 0xC000 == 0, "an attribute type with its flag bits")
        used += NetlinkAttribute.headerSize + attribute.value.count
        _ = attributes.uint32(of: attribute.type)
    }
    precondition(used <= available, "attributes larger than the payload")
}
