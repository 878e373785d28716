#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
/// Numeric values from the kernel's `linux/netlink.h`, `linux/rtnetlink.h`, `linux/if_link.h`
/// and `linux/if_addr.h`, which Swift's Glibc module does not import. Written out once here.
enum Netlink {
    static let protocolRoute: Int32 = 0  // NETLINK_ROUTE
    static let addressFamily: Int32 = 16  // AF_NETLINK

    /// Multicast group bits for `sockaddr_nl.nl_groups`.
    enum Group {
        static let link: UInt32 = 0x1
        static let ipv4Address: UInt32 = 0x10
        static let ipv4Route: UInt32 = 0x40
        static let ipv6Address: UInt32 = 0x100
        static let ipv6Route: UInt32 = 0x400
        /// Everything that can change whether a destination has a usable route.
        static let reachability: UInt32 = link | ipv4Address | ipv4Route | ipv6Address | ipv6Route
    }

    /// `nlmsg_type` values.
    enum MessageType {
        static let noop: UInt16 = 1
        static let error: UInt16 = 2
        static let done: UInt16 = 3
        static let overrun: UInt16 = 4
        static let newLink: UInt16 = 16
        static let getLink: UInt16 = 18
        static let newAddress: UInt16 = 20
        static let getAddress: UInt16 = 22
        static let newRoute: UInt16 = 24
        static let getRoute: UInt16 = 26
    }

    /// `nlmsg_flags` bits.
    enum Flag {
        static let request: UInt16 = 0x1
        static let multipart: UInt16 = 0x2
        static let dump: UInt16 = 0x300
    }

    /// `rta_type` values in route messages.
    enum RouteAttribute {
        static let destination: UInt16 = 1
        static let outputInterface: UInt16 = 4
    }

    /// `rtm_type` values.
    enum RouteType {
        static let unicast: UInt8 = 1
        static let local: UInt8 = 2
    }

    /// `rta_type` values in link messages.
    enum LinkAttribute {
        static let name: UInt16 = 3
        static let operationalState: UInt16 = 16
    }

    /// `IF_OPER_*` values.
    enum OperationalState {
        static let unknown: UInt8 = 0
        static let up: UInt8 = 6
    }

    /// `rta_type` values in address messages.
    enum AddressAttribute {
        static let address: UInt16 = 1
        static let local: UInt16 = 2
    }

    /// `ifi_flags` bits (from `net/if.h`).
    enum InterfaceFlag {
        static let up: UInt32 = 0x1
        static let loopback: UInt32 = 0x8
        static let running: UInt32 = 0x40
    }

    /// `ifi_type` values (`ARPHRD_*`).
    enum HardwareType {
        static let rawIP: UInt16 = 519
    }
}
#endif
