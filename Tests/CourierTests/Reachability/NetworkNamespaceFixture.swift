#if os(Linux)
import Foundation
import Glibc
import Synchronization
import Testing

/// A network namespace created for one test and deleted afterwards, even when the test fails.
/// Everything the reachability tests do to links, addresses and routes happens inside it; the
/// machine's own interfaces are never touched.
struct NetworkNamespaceFixture: Sendable {
    private static let counter = Atomic<Int>(0)

    /// Namespaces need root (CAP_SYS_ADMIN) and iproute2's `ip`.
    static var isSupported: Bool { geteuid() == 0 }

    static let ipTool = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let name: String

    /// The file `setns(2)` opens to enter the namespace.
    var path: String { "/run/netns/\(name)" }

    private init(name: String) { self.name = name }

    /// Creates a namespace, runs `body`, and deletes the namespace whatever happens.
    static func with<T>(_ body: (NetworkNamespaceFixture) async throws -> T) async throws -> T {
        removeNamespacesOfDeadProcesses()
        let number = counter.add(1, ordering: .relaxed).newValue
        let fixture = NetworkNamespaceFixture(name: "courier-reach-\(getpid())-\(number)")
        try fixture.ip("netns", "add", fixture.name)
        do {
            let result = try await body(fixture)
            try? fixture.ip("netns", "del", fixture.name)
            return result
        } catch {
            try? fixture.ip("netns", "del", fixture.name)
            throw error
        }
    }

    /// Deletes namespaces left by test processes that crashed before their cleanup ran
    /// (`courier-reach-<pid>-<n>` whose process no longer exists).
    private static func removeNamespacesOfDeadProcesses() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        for name in names where name.hasPrefix("courier-reach-") {
            let parts = name.split(separator: "-")
            guard parts.count == 4, let pid = pid_t(parts[2]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? NetworkNamespaceFixture(name: name).ip("netns", "del", name)
        }
    }

    /// Runs `ip -n <namespace> <arguments>` (e.g. `inside("link", "set", "vB", "down")`).
    func inside(_ arguments: String...) throws {
        try ip(["-n", name] + arguments)
    }

    /// A veth pair `a`/`b`, both up, with `address` (CIDR) on `a`.
    func addVethPair(_ a: String, _ b: String, address: String?) throws {
        try inside("link", "add", a, "type", "veth", "peer", "name", b)
        if let address { try inside("addr", "add", address, "dev", a) }
        try inside("link", "set", a, "up")
        try inside("link", "set", b, "up")
    }

    private func ip(_ arguments: String...) throws { try ip(arguments) }

    private func ip(_ arguments: [String]) throws {
        guard let tool = Self.ipTool else { throw FixtureError.ipToolMissing }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw FixtureError.commandFailed("ip \(arguments.joined(separator: " ")): \(message)")
        }
    }

    enum FixtureError: Error, CustomStringConvertible {
        case ipToolMissing
        case commandFailed(String)

        var description: String {
            switch self {
            case .ipToolMissing: return "iproute2's `ip` is not installed (apt-get install -y iproute2)"
            case .commandFailed(let message): return message
            }
        }
    }
}
#endif
