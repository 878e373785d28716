#if os(Linux)
import Foundation
import Glibc
import Synchronization

/// A link between this process and a network namespace made for one test, deleted afterwards: the test's server
/// listens on ``hostAddress`` here, the client (`courier`, through ``ChildProcess/Launcher/inNamespace(_:)``) runs in
/// ``namespace``, so every byte between them crosses the link and the ``LinkCondition`` it was made with. Nothing of
/// the machine's own interfaces is touched.
///
/// Loss and rate limits are the kernel's (iptables, `tc tbf`) on a veth pair. Delay and reordering would be
/// `tc netem`'s, but this machine's kernel (a Firecracker build) has no `sch_netem` ("Specified qdisc kind is
/// unknown"); for those the link is a pair of TUN devices with a ``PacketRelay`` between them doing netem's work.
struct LinkUnderTest: Sendable {
    private static let counter = Atomic<Int>(0)

    let namespace: String
    /// The end in this process's namespace; its queue holds what the server sends (downloads).
    let hostSide: String
    /// The end in ``namespace``; its queue holds what the client sends (uploads).
    let namespaceSide: String
    let hostAddress: String
    let namespaceAddress: String
    /// What carries the packets of a delayed or reordering link; `nil` for a veth.
    private(set) var relay: PacketRelay?
    private var devices: [TunDevice] = []

    /// Root, `ip` and `tc` (iproute2); `iptables-legacy` for packet loss, `/dev/net/tun` for delay and reordering.
    static var isSupported: Bool { geteuid() == 0 && tool("ip") != nil && tool("tc") != nil }

    /// Makes the namespace and a link under `condition` (both ends up, addressed), runs `body`, and deletes them
    /// whatever happens.
    static func with<T>(_ condition: LinkCondition? = nil, _ body: (LinkUnderTest) async throws -> T) async throws -> T {
        let number = counter.add(1, ordering: .relaxed).newValue
        let pid = Int(getpid()) % 100_000
        let subnet = "10.213.\((pid + number) % 250 + 1)"
        var link = LinkUnderTest(
            namespace: "courier-link-\(getpid())-\(number)", hostSide: "cl\(number)h\(pid)", namespaceSide: "cl\(number)n\(pid)",
            hostAddress: "\(subnet).1", namespaceAddress: "\(subnet).2"
        )
        defer { link.remove() }
        try run("ip", "netns", "add", link.namespace)
        if let (toClient, toServer) = condition?.schedules {
            try link.makeRelayedEnds(toClient: toClient, toServer: toServer)
        } else {
            try link.makeVethEnds()
        }
        try run("ip", "-n", link.namespace, "link", "set", "lo", "up")
        if let condition { try link.apply(condition) }
        // A veth's carrier comes up a moment after both ends are set up; a connection attempted before it waits
        // on SYN retransmissions instead of testing the condition. (A TUN device has no carrier to wait for.)
        let carries = link.relay != nil ? true : await link.carriesWithin(.seconds(5))
        guard carries else {
            throw LinkFailure(message: "the link \(link.hostSide) did not come up within 5 s")
        }
        return try await body(link)
    }

    private func makeVethEnds() throws {
        try Self.run("ip", "link", "add", hostSide, "type", "veth", "peer", "name", namespaceSide, "netns", namespace)
        try Self.run("ip", "addr", "add", "\(hostAddress)/24", "dev", hostSide)
        try Self.run("ip", "link", "set", hostSide, "up")
        try Self.run("ip", "-n", namespace, "addr", "add", "\(namespaceAddress)/24", "dev", namespaceSide)
        try Self.run("ip", "-n", namespace, "link", "set", namespaceSide, "up")
    }

    /// Two point-to-point TUN devices, one moved into the namespace, and the relay between them. A TUN device's
    /// queue to its reader holds 500 packets by default; a longer one keeps a burst from being dropped before the
    /// relay reads it, which would add loss to a test of delay.
    private mutating func makeRelayedEnds(toClient: PacketSchedule, toServer: PacketSchedule) throws {
        let host = try TunDevice(name: hostSide)
        devices.append(host)
        let client = try TunDevice(name: namespaceSide)
        devices.append(client)
        try Self.run("ip", "link", "set", namespaceSide, "netns", namespace)
        try Self.run("ip", "addr", "add", hostAddress, "peer", namespaceAddress, "dev", hostSide)
        try Self.run("ip", "link", "set", hostSide, "txqueuelen", "10000", "up")
        try Self.run("ip", "-n", namespace, "addr", "add", namespaceAddress, "peer", hostAddress, "dev", namespaceSide)
        try Self.run("ip", "-n", namespace, "link", "set", namespaceSide, "txqueuelen", "10000", "up")
        relay = try PacketRelay(between: host, and: client, forward: toClient, backward: toServer)
    }

    private func remove() {
        relay?.stop()
        // A TUN device goes with its descriptor, in whichever namespace it is.
        for device in devices { device.close() }
        if devices.isEmpty { try? Self.run("ip", "link", "del", hostSide) }
        try? Self.run("ip", "netns", "del", namespace)
    }

    enum Side { case host, namespace }

    /// Puts `condition` on a veth link, in both directions.
    private func apply(_ condition: LinkCondition) throws {
        switch condition {
        case .loss(let percent):
            try sendWireSizedPackets()
            // The statistic match drops that share of the packets entering and leaving the namespace.
            let probability = String(format: "%.4f", percent / 100)
            for chain in ["INPUT", "OUTPUT"] {
                try Self.run("ip", "netns", "exec", namespace, Self.iptables, "-A", chain, "-m", "statistic", "--mode", "random",
                             "--probability", probability, "-j", "DROP")
            }
        case .rate(let bytesPerSecond):
            // The token bucket meters wire-sized packets, as on a real link, not 64 KiB batches.
            try sendWireSizedPackets()
            let rate = "\(bytesPerSecond * 8 / 1000)kbit"
            try tc(on: .host, "qdisc", "add", "dev", hostSide, "root", "tbf", "rate", rate, "burst", "64kb", "latency", "400ms")
            try tc(on: .namespace, "qdisc", "add", "dev", namespaceSide, "root", "tbf", "rate", rate, "burst", "64kb", "latency", "400ms")
        case .delay, .reordering:
            // The relay's schedules, set when the link was made.
            break
        }
    }

    /// One segment per packet (no GSO) both ways, so that a rule counts, drops or meters wire-sized packets.
    private func sendWireSizedPackets() throws {
        try Self.run("ip", "link", "set", "dev", hostSide, "gso_max_segs", "1")
        try Self.run("ip", "-n", namespace, "link", "set", "dev", namespaceSide, "gso_max_segs", "1")
    }

    /// Each end's queueing discipline with its counters (sent, dropped, overlimits), for a failure's message.
    func queueStatistics() -> String {
        let host = (try? Self.output(["tc", "-s", "qdisc", "show", "dev", hostSide])) ?? "(unreadable)"
        let client = (try? Self.output(["ip", "-n", namespace, "-s", "link", "show", namespaceSide])) ?? "(unreadable)"
        let clientQueue = (try? Self.output(["ip", "netns", "exec", namespace, Self.tool("tc") ?? "tc", "-s", "qdisc", "show", "dev", namespaceSide]))
            ?? "(unreadable)"
        return "host side:\n\(host)client side:\n\(clientQueue)\(client)"
    }

    /// Whether this side's end carries packets within `limit`, polled every 50 ms.
    func carriesWithin(_ limit: Duration) async -> Bool {
        await eventually(timeout: limit, every: .milliseconds(50)) { isCarrying }
    }

    /// The packets the loss rules dropped so far, both ways (their counters).
    func droppedPackets() throws -> Int {
        var dropped = 0
        for chain in ["INPUT", "OUTPUT"] {
            let listing = try Self.output(["ip", "netns", "exec", namespace, Self.iptables, "-L", chain, "-v", "-x", "-n"])
            for line in listing.split(separator: "\n") where line.contains("DROP") {
                dropped += Int(line.split(separator: " ", omittingEmptySubsequences: true).first ?? "") ?? 0
            }
        }
        return dropped
    }

    /// One of the `TcpExt` counters of the namespace's TCP (`/proc/net/netstat` there), such as `TCPOFOQueue`, the
    /// segments that arrived ahead of a gap.
    func namespaceTCPCounter(_ name: String) throws -> Int? {
        let table = try Self.output(["ip", "netns", "exec", namespace, "cat", "/proc/net/netstat"])
        let lines = table.split(separator: "\n").filter { $0.hasPrefix("TcpExt:") }
        guard lines.count == 2 else { return nil }
        let names = lines[0].split(separator: " "), values = lines[1].split(separator: " ")
        return names.firstIndex { $0 == name }.flatMap { values.indices.contains($0) ? Int(values[$0]) : nil }
    }

    /// Takes the link down (`false`) or brings it back up, from this side: nothing crosses while it is down.
    func setUp(_ up: Bool) throws {
        try Self.run("ip", "link", "set", hostSide, up ? "up" : "down")
    }

    /// Whether this side's end carries packets again (`operstate` up: both ends up, and the kernel has put back the
    /// subnet's route it removed with the carrier).
    var isCarrying: Bool {
        let state = try? String(contentsOfFile: "/sys/class/net/\(hostSide)/operstate", encoding: .utf8)
        return state?.trimmingCharacters(in: .whitespacesAndNewlines) == "up"
    }

    private func tc(on side: Side, _ arguments: String...) throws {
        switch side {
        case .host: try Self.run(["tc"] + arguments)
        case .namespace: try Self.run(["ip", "netns", "exec", namespace, Self.tool("tc") ?? "tc"] + arguments)
        }
    }

    /// The legacy iptables (the statistic match is in this kernel's x_tables; it has no nf_tables).
    static var iptables: String { tool("iptables-legacy") ?? tool("iptables") ?? "iptables-legacy" }

    static func tool(_ name: String) -> String? {
        ["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    private static func run(_ arguments: String...) throws { try run(arguments) }

    private static func run(_ arguments: [String]) throws {
        _ = try output(arguments)
    }

    /// What the command printed on standard output.
    private static func output(_ arguments: [String]) throws -> String {
        guard let first = arguments.first else { return "" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: first.hasPrefix("/") ? first : (tool(first) ?? first))
        process.arguments = Array(arguments.dropFirst())
        let errors = Pipe(), printed = Pipe()
        process.standardError = errors
        process.standardOutput = printed
        try process.run()
        // Read before waiting: a listing larger than the pipe's buffer would otherwise block the command.
        let output = printed.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw LinkFailure(message: "\(arguments.joined(separator: " ")): \(message)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    struct LinkFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// What is wrong with a link.
enum LinkCondition: Sendable, CustomStringConvertible {
    /// That share of packets dropped, each way (iptables' statistic match).
    case loss(percent: Double)
    /// At most that many bytes a second, each way (a token bucket, `tc tbf`).
    case rate(bytesPerSecond: Int)
    /// Each packet delayed, normally distributed around `milliseconds`, in order (a ``PacketRelay``).
    case delay(milliseconds: Int, jitter: Int)
    /// That share of packets held back 20 ms, so that later ones overtake them (a ``PacketRelay``).
    case reordering(percent: Int)

    /// The relay's schedules toward the client and toward the server, for the conditions a relay makes.
    var schedules: (PacketSchedule, PacketSchedule)? {
        let rule: PacketSchedule.Rule
        switch self {
        case .loss, .rate: return nil
        case .delay(let milliseconds, let jitter): rule = .delay(milliseconds: Double(milliseconds), jitter: Double(jitter))
        case .reordering(let percent): rule = .holdBack(percent: Double(percent), milliseconds: 20)
        }
        return (PacketSchedule(rule, seed: 1), PacketSchedule(rule, seed: 2))
    }

    var description: String {
        switch self {
        case .loss(let percent): "\(String(format: "%g", percent)) % loss"
        case .rate(let bytes): "\(bytes / 1_000_000) MB/s"
        case .delay(let milliseconds, let jitter): "\(milliseconds) ms ± \(jitter) ms delay"
        case .reordering(let percent): "\(percent) % reordered"
        }
    }
}
#endif
