#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// Decides, from what the kernel says about an interface, whether it can carry traffic and
/// whether it is cellular. Pure; no I/O.
enum InterfaceClassifier {
    /// Name prefixes of cellular modem interfaces (kernel WWAN framework, Qualcomm rmnet,
    /// MediaTek ccmni, qmi_wwan multiplexing).
    static let cellularNamePrefixes = ["wwan", "rmnet", "ccmni", "qmimux"]

    /// An interface carries traffic when it is administratively up and either running or in an
    /// operational state of up or unknown (virtual devices without carrier tracking report unknown).
    static func isUsable(_ link: LinkMessage) -> Bool {
        guard link.flags & Netlink.InterfaceFlag.up != 0 else { return false }
        if let state = link.operationalState, state != Netlink.OperationalState.up, state != Netlink.OperationalState.unknown {
            return false
        }
        return link.flags & Netlink.InterfaceFlag.running != 0
    }

    /// `true` for cellular interfaces: a known modem name prefix or the raw-IP hardware type.
    static func isCellular(_ link: LinkMessage) -> Bool {
        if link.hardwareType == Netlink.HardwareType.rawIP { return true }
        guard let name = link.name else { return false }
        return cellularNamePrefixes.contains { name.hasPrefix($0) }
    }

    /// The status a route through `link` gives, given whether it has an address.
    static func status(link: LinkMessage, hasAddress: Bool) -> NetworkReachabilityStatus {
        guard hasAddress, isUsable(link) else { return .notReachable }
        return isCellular(link) ? .reachableViaWWAN : .reachableViaWiFi
    }
}
#endif
