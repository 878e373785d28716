import Foundation

/// One second of the soak: how far it got and what the process held then.
struct ProcessSample: Sendable {
    /// Seconds since the soak started.
    let elapsed: Double
    /// Requests finished so far (any outcome).
    let requests: Int
    /// Open file descriptors.
    let descriptors: Int
    /// Resident set size, in KiB.
    let residentKiB: Int
    /// TCP connections in the ESTABLISHED state whose socket this process holds (both ends of a connection to an
    /// in-process server count).
    let connections: Int

    static let csvHeader = "elapsed_s,requests,fds,rss_kib,tcp_connections"

    var csvLine: String {
        "\(String(format: "%.1f", elapsed)),\(requests),\(descriptors),\(residentKiB),\(connections)"
    }

    /// What `/proc` says about this process now.
    static func now(elapsed: Double, requests: Int) -> ProcessSample {
        let sockets = socketInodes()
        return ProcessSample(
            elapsed: elapsed, requests: requests, descriptors: sockets.descriptors,
            residentKiB: ProcessStats.residentBytes() / 1024, connections: establishedConnections(among: sockets.inodes)
        )
    }

    /// The number of open descriptors and the inodes of those that are sockets (`socket:[N]`).
    private static func socketInodes() -> (descriptors: Int, inodes: Set<Substring>) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return (-1, []) }
        var inodes = Set<Substring>()
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                  target.hasPrefix("socket:[") else { continue }
            inodes.insert(Substring(target.dropFirst("socket:[".count).dropLast()))
        }
        return (entries.count, inodes)
    }

    /// The ESTABLISHED (state `01`) rows of `/proc/self/net/tcp` and `tcp6` whose inode (the tenth column) is one of
    /// `inodes`.
    private static func establishedConnections(among inodes: Set<Substring>) -> Int {
        var count = 0
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            // Read to the end: the table has a size of 0, and a reader that trusts it stops after the first page.
            guard let handle = FileHandle(forReadingAtPath: table) else { continue }
            defer { try? handle.close() }
            guard let data = try? handle.readToEnd() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for row in text.split(separator: "\n").dropFirst() {
                let columns = row.split(separator: " ", omittingEmptySubsequences: true)
                if columns.count > 9, columns[3] == "01", inodes.contains(columns[9]) { count += 1 }
            }
        }
        return count
    }
}
