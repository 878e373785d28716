#if os(Linux)
@testable import Courier
import Testing

@Suite("Netlink message coding")
struct NetlinkCodingTests {
    @Test func routeLookupEncodesLikeTheCapturedRequest() throws {
        let address = try #require(ReachabilityAddress("10.213.1.2"))
        #expect(RouteMessage.lookup(address, sequence: 1).encoded == CapturedNetlinkBytes.routeRequest)
    }

    @Test func encodedMessagesParseBack() throws {
        let address = try #require(ReachabilityAddress("fd00::7"))
        let request = RouteMessage.lookup(address, sequence: 99)
        let parsed = try NetlinkMessage.parseAll(request.encoded + LinkMessage.lookup(index: 5, sequence: 100).encoded)
        #expect(parsed.count == 2)
        #expect(parsed[0] == request)
        #expect(parsed[1].type == Netlink.MessageType.getLink)
        #expect(parsed[1].sequence == 100)
        let attributes = try NetlinkAttribute.parseAll(parsed[0].payload.dropFirst(RouteMessage.bodySize))
        #expect(attributes == [NetlinkAttribute(type: Netlink.RouteAttribute.destination, value: address.bytes)])
    }

    @Test func addressDumpRequestAsksForADump() throws {
        let message = AddressMessage.dump(family: .v6, sequence: 3)
        #expect(message.flags == 0x301)
        #expect(message.encoded.count == 24)
        #expect(message.payload.first == 10)  // AF_INET6
    }

    @Test func decodesCapturedRouteReply() throws {
        let messages = try NetlinkMessage.parseAll(CapturedNetlinkBytes.routeReply)
        #expect(messages.count == 1)
        let route = try RouteMessage(messages[0])
        #expect(route.family == 2)
        #expect(route.destinationPrefixLength == 32)
        #expect(route.routeType == Netlink.RouteType.unicast)
        #expect(route.delivers)
        #expect(route.outputInterface == 3)
        #expect(route.attributes.map(\.type) == [15, 1, 4, 7, 25, 12])
        #expect(route.attributes.value(of: Netlink.RouteAttribute.destination) == [10, 213, 1, 2])
    }

    @Test func decodesCapturedUnreachableError() throws {
        let messages = try NetlinkMessage.parseAll(CapturedNetlinkBytes.unreachableReply)
        #expect(messages.count == 1)
        #expect(messages[0].sequence == 2)
        #expect(try messages[0].errorCode() == -101)
        #expect(throws: NetlinkParseError.unexpectedType(2)) { try RouteMessage(messages[0]) }
    }

    @Test func decodesCapturedLinkReply() throws {
        let link = try LinkMessage(try #require(NetlinkMessage.parseAll(CapturedNetlinkBytes.linkReply).first))
        #expect(link.index == 2)
        #expect(link.hardwareType == 1)
        #expect(link.name == "vB")
        #expect(link.operationalState == Netlink.OperationalState.up)
        #expect(link.flags & Netlink.InterfaceFlag.up != 0)
        #expect(link.flags & Netlink.InterfaceFlag.running != 0)
        #expect(InterfaceClassifier.status(link: link, hasAddress: true) == .reachableViaWiFi)
    }

    @Test func decodesCapturedAddressReply() throws {
        let address = try AddressMessage(try #require(NetlinkMessage.parseAll(CapturedNetlinkBytes.addressReply).first))
        #expect(address.family == 2)
        #expect(address.prefixLength == 24)
        #expect(address.interfaceIndex == 3)
        #expect(address.address == ReachabilityAddress("10.213.1.1"))
    }

    @Test func rejectsBadLengthsWithTypedErrors() {
        var tooLong = CapturedNetlinkBytes.routeReply
        tooLong[0] = 0xff
        #expect(throws: NetlinkParseError.badLength) { try NetlinkMessage.parseAll(tooLong) }
        var tooShort = CapturedNetlinkBytes.routeReply
        tooShort[0] = 4
        #expect(throws: NetlinkParseError.badLength) { try NetlinkMessage.parseAll(tooShort) }
        #expect(throws: NetlinkParseError.truncated) { try NetlinkMessage.parseAll(CapturedNetlinkBytes.routeReply + [1, 2, 3]) }
        #expect(throws: NetlinkParseError.badLength) { try NetlinkAttribute.parseAll([0x09, 0x00, 0x01, 0x00, 0x0a][...]) }
        #expect(throws: NetlinkParseError.badLength) { try NetlinkAttribute.parseAll([0x02, 0x00, 0x01, 0x00][...]) }
        let shortBody = NetlinkMessage(type: Netlink.MessageType.newLink, flags: 0, sequence: 0, payload: [0, 0, 1])
        #expect(throws: NetlinkParseError.truncated) { try LinkMessage(shortBody) }
        let emptyError = NetlinkMessage(type: Netlink.MessageType.error, flags: 0, sequence: 0, payload: [])
        #expect(throws: NetlinkParseError.truncated) { try emptyError.errorCode() }
    }

    /// Every prefix and many corruptions of real datagrams decode or throw; none crashes.
    @Test func survivesTruncatedAndCorruptedBuffers() throws {
        var generator = SystemRandomNumberGenerator()
        for capture in [CapturedNetlinkBytes.routeReply, CapturedNetlinkBytes.linkReply, CapturedNetlinkBytes.addressReply, CapturedNetlinkBytes.unreachableReply] {
            var samples = (0...capture.count).map { Array(capture.prefix($0)) }
            for _ in 0..<300 {
                var corrupted = capture
                for _ in 0..<3 { corrupted[Int.random(in: 0..<capture.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
                samples.append(corrupted)
            }
            // The whole capture parses; every sample either throws or yields messages that fit inside it.
            #expect(try !NetlinkMessage.parseAll(capture).isEmpty)
            var parsedSamples = 0
            for sample in samples {
                guard let messages = try? NetlinkMessage.parseAll(sample) else { continue }
                parsedSamples += 1
                let bytes = messages.reduce(0) { $0 + NetlinkMessage.headerSize + $1.payload.count }
                #expect(bytes <= sample.count, "parsed \(bytes) bytes out of a \(sample.count)-byte buffer")
                for message in messages {
                    _ = try? RouteMessage(message).outputInterface
                    _ = try? LinkMessage(message).name
                    _ = try? AddressMessage(message).address
                    _ = try? message.errorCode()
                }
            }
            #expect(parsedSamples > 0, "no sample parsed at all: the loop above would check nothing")
            #expect(throws: NetlinkParseError.self, "a header cut short") { try NetlinkMessage.parseAll(Array(capture.prefix(NetlinkMessage.headerSize - 1))) }
        }
    }
}
#endif
