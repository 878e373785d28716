#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// Answers "is there a usable route to these addresses, and over what kind of interface?" by
/// asking the kernel over a request socket: `RTM_GETROUTE` for the destination, `RTM_GETLINK`
/// for the output interface, `RTM_GETADDR` for its addresses. Sends nothing to the destination.
struct RouteEvaluator {
    /// Stand-ins for "the network in general": documentation addresses (RFC 5737, RFC 3849) that
    /// no network routes specifically, so their lookup finds the default route if there is one.
    static let generalProbes: [ReachabilityAddress] = [ReachabilityAddress("192.0.2.1"), ReachabilityAddress("2001:db8::1")].compactMap { $0 }

    let socket: NetlinkSocket
    private var sequence: UInt32 = 0

    init(socket: NetlinkSocket) { self.socket = socket }

    /// The addresses whose routes stand for `address`.
    static func probes(for address: ReachabilityAddress) -> [ReachabilityAddress] {
        guard address.isUnspecified else { return [address] }
        return generalProbes.filter { $0.family == address.family }
    }

    /// The best status over `addresses`: Wi-Fi (any non-cellular) before WWAN before none.
    mutating func status(for addresses: [ReachabilityAddress]) -> NetworkReachabilityStatus {
        var best = NetworkReachabilityStatus.notReachable
        for address in addresses {
            switch status(for: address) {
            case .reachableViaWiFi: return .reachableViaWiFi
            case .reachableViaWWAN: best = .reachableViaWWAN
            default: break
            }
        }
        return best
    }

    private mutating func nextSequence() -> UInt32 {
        sequence &+= 1
        return sequence
    }

    private mutating func status(for address: ReachabilityAddress) -> NetworkReachabilityStatus {
        do throws(NetlinkSocketError) {
            guard let routeReply = try socket.exchange(RouteMessage.lookup(address, sequence: nextSequence())).first else { return .notReachable }
            let route: RouteMessage
            do { route = try RouteMessage(routeReply) } catch { throw .malformed(error) }
            guard route.delivers, let interface = route.outputInterface else { return .notReachable }

            guard let linkReply = try socket.exchange(LinkMessage.lookup(index: interface, sequence: nextSequence())).first else { return .notReachable }
            let link: LinkMessage
            do { link = try LinkMessage(linkReply) } catch { throw .malformed(error) }

            let addressReplies = try socket.exchange(AddressMessage.dump(family: address.family, sequence: nextSequence()))
            let hasAddress = addressReplies.contains { reply in
                (try? AddressMessage(reply))?.interfaceIndex == interface
            }
            return InterfaceClassifier.status(link: link, hasAddress: hasAddress)
        } catch {
            // ENETUNREACH, EHOSTUNREACH, a timeout or an undecodable answer: no usable route known.
            return .notReachable
        }
    }
}
#endif
