#if os(Linux)
import Foundation
import Glibc
import Synchronization

/// A veth link between this process and a network namespace made for one test, deleted afterwards: the test's server
/// listens on ``hostAddress`` here, the client (`courier`, through ``ChildProcess/Launcher/inNamespace(_:)``) runs in
/// ``namespace``, so every byte between them crosses the link and whatever ``LinkCondition`` is put on it. Nothing of
/// the machine's own interfaces is touched.
struct LinkUnderTest: Sendable {
    private static let counter = Atomic<Int>(0)

    let namespace: String
    /// The veth end in this process's namespace; its queue holds what the server sends (downloads).
    let hostSide: String
    /// The veth end in ``namespace``; its queue holds what the client sends (uploads).
    let namespaceSide: String
    let hostAddress: String
    let namespaceAddress: String

    /// Root, `ip` and `tc` (iproute2); `iptables-legacy` for packet loss.
    static var isSupported: Bool { geteuid() == 0 && tool("ip") != nil && tool("tc") != nil }

    /// Whether the kernel has `sch_netem` (delay, jitter, reordering). Firecracker's kernel here does not: `tc` answers
    /// "Specified qdisc kind is unknown".
    static let netemAvailable: Bool = {
        guard isSupported else { return false }
        return (try? with { link in try link.tc(on: .host, "qdisc", "add", "dev", link.hostSide, "root", "netem", "delay", "1ms") }) != nil
    }()

    /// Makes the namespace and the link (both ends up, addressed), runs `body`, and deletes them whatever happens.
    static func with<T>(_ body: (LinkUnderTest) async throws -> T) async throws -> T {
        let link = try make()
        defer { link.remove() }
        return try await body(link)
    }

    private static func with<T>(_ body: (LinkUnderTest) throws -> T) throws -> T {
        let link = try make()
        defer { link.remove() }
        return try body(link)
    }

    private static func make() throws -> LinkUnderTest {
        let number = counter.add(1, ordering: .relaxed).newValue
        let pid = Int(getpid()) % 100_000
        let subnet = "10.213.\((pid + number) % 250 + 1)"
        let link = LinkUnderTest(
            namespace: "courier-link-\(getpid())-\(number)", hostSide: "cl\(number)h\(pid)", namespaceSide: "cl\(number)n\(pid)",
            hostAddress: "\(subnet).1", namespaceAddress: "\(subnet).2"
        )
        do {
            try run("ip", "netns", "add", link.namespace)
            try run("ip", "link", "add", link.hostSide, "type", "veth", "peer", "name", link.namespaceSide, "netns", link.namespace)
            try run("ip", "addr", "add", "\(link.hostAddress)/24", "dev", link.hostSide)
            try run("ip", "link", "set", link.hostSide, "up")
            try run("ip", "-n", link.namespace, "addr", "add", "\(link.namespaceAddress)/24", "dev", link.namespaceSide)
            try run("ip", "-n", link.namespace, "link", "set", link.namespaceSide, "up")
            try run("ip", "-n", link.namespace, "link", "set", "lo", "up")
        } catch {
            link.remove()
            throw error
        }
        return link
    }

    private func remove() {
        try? Self.run("ip", "link", "del", hostSide)
        try? Self.run("ip", "netns", "del", namespace)
    }

    enum Side { case host, namespace }

    /// Puts `condition` on the link, in both directions.
    func apply(_ condition: LinkCondition) throws {
        switch condition {
        case .loss(let percent):
            // One segment per packet (no GSO), so that the share is of wire-sized packets, not of 64 KiB batches.
            try Self.run("ip", "link", "set", "dev", hostSide, "gso_max_segs", "1")
            try Self.run("ip", "-n", namespace, "link", "set", "dev", namespaceSide, "gso_max_segs", "1")
            // The statistic match drops that share of the packets entering and leaving the namespace.
            let probability = String(format: "%.4f", percent / 100)
            for chain in ["INPUT", "OUTPUT"] {
                try Self.run("ip", "netns", "exec", namespace, Self.iptables, "-A", chain, "-m", "statistic", "--mode", "random",
                             "--probability", probability, "-j", "DROP")
            }
        case .rate(let bytesPerSecond):
            let rate = "\(bytesPerSecond * 8 / 1000)kbit"
            try tc(on: .host, "qdisc", "add", "dev", hostSide, "root", "tbf", "rate", rate, "burst", "64kb", "latency", "400ms")
            try tc(on: .namespace, "qdisc", "add", "dev", namespaceSide, "root", "tbf", "rate", rate, "burst", "64kb", "latency", "400ms")
        case .delay(let milliseconds, let jitter):
            try tc(on: .host, "qdisc", "add", "dev", hostSide, "root", "netem", "delay", "\(milliseconds)ms", "\(jitter)ms", "distribution", "normal")
            try tc(on: .namespace, "qdisc", "add", "dev", namespaceSide, "root", "netem", "delay", "\(milliseconds)ms", "\(jitter)ms", "distribution", "normal")
        case .reordering(let percent):
            // netem reorders by sending that share of packets at once and delaying the rest.
            for (side, device) in [(Side.host, hostSide), (.namespace, namespaceSide)] {
                try tc(on: side, "qdisc", "add", "dev", device, "root", "netem", "delay", "20ms", "reorder", "\(100 - percent)%", "50%")
            }
        }
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

    /// Takes the link down (`false`) or brings it back up, from this side: nothing crosses while it is down.
    func setUp(_ up: Bool) throws {
        try Self.run("ip", "link", "set", hostSide, up ? "up" : "down")
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
    /// Each packet delayed, normally distributed around `milliseconds` (`tc netem`).
    case delay(milliseconds: Int, jitter: Int)
    /// That share of packets sent ahead of the others (`tc netem`).
    case reordering(percent: Int)

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
