import Foundation

/// Whether, and over which kind of interface, a reachability target can currently be reached.
///
/// The raw values match AFNetworking's status numbers (`-1`, `0`, `1`, `2`).
public enum NetworkReachabilityStatus: Int, Sendable, Hashable, CustomStringConvertible {
    /// Not determined yet: monitoring has not started or has not produced its first answer.
    case unknown = -1
    /// No usable route to the target.
    case notReachable = 0
    /// Reachable over a cellular (WWAN) interface. On Linux: an interface named `wwan*`,
    /// `rmnet*`, `ccmni*`, `qmimux*` or of the raw-IP hardware type used by modem drivers.
    case reachableViaWWAN = 1
    /// Reachable over any other interface (Wi-Fi, Ethernet, loopback, tunnels, ...).
    case reachableViaWiFi = 2

    /// `true` for ``reachableViaWWAN`` and ``reachableViaWiFi``.
    public var isReachable: Bool { self == .reachableViaWWAN || self == .reachableViaWiFi }

    /// A short, human-readable, localized description ("Unknown", "Not Reachable",
    /// "Reachable via WWAN", "Reachable via WiFi").
    public var localizedDescription: String {
        switch self {
        case .unknown:
            return NSLocalizedString("Unknown", comment: "Network reachability status")
        case .notReachable:
            return NSLocalizedString("Not Reachable", comment: "Network reachability status")
        case .reachableViaWWAN:
            return NSLocalizedString("Reachable via WWAN", comment: "Network reachability status")
        case .reachableViaWiFi:
            return NSLocalizedString("Reachable via WiFi", comment: "Network reachability status")
        }
    }

    /// Same as ``localizedDescription``.
    public var description: String { localizedDescription }
}

extension Notification.Name {
    /// Posted on the main queue by a ``NetworkReachabilityManager`` whose status changed.
    ///
    /// `object` is the manager; `userInfo[NetworkReachabilityManager.statusUserInfoKey]` holds the
    /// new ``NetworkReachabilityStatus``.
    public static let courierReachabilityDidChange = Notification.Name("CourierReachabilityDidChange")
}
