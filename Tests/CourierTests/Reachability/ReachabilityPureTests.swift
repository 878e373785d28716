@testable import Courier
import Foundation
import Testing

@Suite("Reachability values")
struct ReachabilityPureTests {
    @Test func statusValuesAndStrings() {
        #expect(NetworkReachabilityStatus.unknown.rawValue == -1)
        #expect(NetworkReachabilityStatus.notReachable.rawValue == 0)
        #expect(NetworkReachabilityStatus.reachableViaWWAN.rawValue == 1)
        #expect(NetworkReachabilityStatus.reachableViaWiFi.rawValue == 2)
        #expect(NetworkReachabilityStatus.reachableViaWiFi.localizedDescription == "Reachable via WiFi")
        #expect(NetworkReachabilityStatus.notReachable.description == "Not Reachable")
        #expect(!NetworkReachabilityStatus.unknown.isReachable)
        #expect(NetworkReachabilityStatus.reachableViaWWAN.isReachable)
    }

    @Test func addressesParseAndPrint() throws {
        #expect(ReachabilityAddress("10.213.0.1")?.bytes == [10, 213, 0, 1])
        #expect(ReachabilityAddress("fd00::1")?.family == .v6)
        #expect(ReachabilityAddress("fd00::1")?.description == "fd00::1")
        #expect(ReachabilityAddress("example.com") == nil)
        #expect(ReachabilityAddress("10.0.0.256") == nil)
        #expect(ReachabilityAddress(family: .v4, bytes: [1, 2, 3]) == nil)
        #expect(try #require(ReachabilityAddress("0.0.0.0")).isUnspecified)
        #expect(try #require(ReachabilityAddress("::")).isUnspecified)
    }

    @Test func managerInitializersValidateTheirInput() {
        #expect(NetworkReachabilityManager(domain: "") == nil)
        #expect(NetworkReachabilityManager(domain: "   ") == nil)
        #expect(NetworkReachabilityManager(domain: String(repeating: "a", count: 254)) == nil)
        #expect(NetworkReachabilityManager(domain: "example.com") != nil)
        #expect(NetworkReachabilityManager(host: "not-an-address") == nil)
        #expect(NetworkReachabilityManager(host: "::1") != nil)
        let manager = NetworkReachabilityManager(address: sockaddr_in())
        #expect(manager.networkReachabilityStatus == .unknown)
        #expect(manager.localizedNetworkReachabilityStatusString == "Unknown")
        #expect(!manager.isReachable)
    }

    @Test func systemResolverReadsHostsFile() {
        // "localhost" comes from /etc/hosts ("files" precede "dns"); no query leaves the machine.
        let addresses = ReachabilityHostResolver.system.resolve("localhost")
        #expect(addresses.contains(ReachabilityAddress("127.0.0.1")!) || addresses.contains(ReachabilityAddress("::1")!))
        #expect(Set(addresses).count == addresses.count)
    }

    #if os(Linux)
    @Test func generalProbesStandForUnspecifiedAddresses() throws {
        #expect(RouteEvaluator.probes(for: try #require(ReachabilityAddress("0.0.0.0"))) == [ReachabilityAddress("192.0.2.1")])
        #expect(RouteEvaluator.probes(for: try #require(ReachabilityAddress("::"))) == [ReachabilityAddress("2001:db8::1")])
        #expect(RouteEvaluator.probes(for: try #require(ReachabilityAddress("10.1.2.3"))) == [ReachabilityAddress("10.1.2.3")])
    }

    @Test func classifierRecognisesCellularAndUnusableLinks() throws {
        func link(name: String, type: UInt16 = 1, flags: UInt32 = 0x41, state: UInt8 = 6) throws -> LinkMessage {
            var writer = NetlinkByteWriter()
            writer.write(UInt8(0)); writer.write(UInt8(0)); writer.write(type); writer.write(Int32(7))
            writer.write(flags); writer.write(UInt32(0))
            writer.write(NetlinkAttribute(type: Netlink.LinkAttribute.name, value: Array(name.utf8) + [0]).encoded)
            writer.write(NetlinkAttribute(type: Netlink.LinkAttribute.operationalState, value: [state]).encoded)
            return try LinkMessage(NetlinkMessage(type: Netlink.MessageType.newLink, flags: 0, sequence: 0, payload: writer.bytes))
        }
        #expect(InterfaceClassifier.status(link: try link(name: "eth0"), hasAddress: true) == .reachableViaWiFi)
        #expect(InterfaceClassifier.status(link: try link(name: "wwan0"), hasAddress: true) == .reachableViaWWAN)
        #expect(InterfaceClassifier.status(link: try link(name: "rmnet_data0"), hasAddress: true) == .reachableViaWWAN)
        #expect(InterfaceClassifier.status(link: try link(name: "mdm0", type: 519), hasAddress: true) == .reachableViaWWAN)
        #expect(InterfaceClassifier.status(link: try link(name: "eth0"), hasAddress: false) == .notReachable)
        #expect(InterfaceClassifier.status(link: try link(name: "eth0", flags: 0x40), hasAddress: true) == .notReachable)
        #expect(InterfaceClassifier.status(link: try link(name: "eth0", flags: 0x1), hasAddress: true) == .notReachable)
        #expect(InterfaceClassifier.status(link: try link(name: "eth0", state: 3), hasAddress: true) == .notReachable)
        #expect(InterfaceClassifier.status(link: try link(name: "tun0", state: 0), hasAddress: true) == .reachableViaWiFi)
    }

    @Test func debouncerWaitsForQuietThenFires() {
        var debouncer = EventDebouncer(quietPeriod: 30, maximumDelay: 200)
        #expect(debouncer.pollTimeout(at: 0) == -1)
        let dueBeforeAnyEvent = debouncer.takeDue(at: 1_000)
        #expect(!dueBeforeAnyEvent)
        debouncer.record(at: 1_000)
        #expect(debouncer.pollTimeout(at: 1_000) == 30)
        debouncer.record(at: 1_020)
        let dueTooEarly = debouncer.takeDue(at: 1_040)
        #expect(!dueTooEarly)
        #expect(debouncer.pollTimeout(at: 1_040) == 10)
        let dueAfterQuiet = debouncer.takeDue(at: 1_050)
        #expect(dueAfterQuiet)
        #expect(debouncer.pollTimeout(at: 1_050) == -1)
    }

    @Test func debouncerCapsTheDelayUnderAnEventStorm() {
        var debouncer = EventDebouncer(quietPeriod: 30, maximumDelay: 200)
        var now: UInt64 = 0
        while !debouncer.takeDue(at: now) {
            debouncer.record(at: now)
            now += 10
        }
        #expect(now == 200)
    }
    #endif
}
