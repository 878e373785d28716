import Foundation

/// One request (and what follows from it: redirects, challenges, a resumption) of the hostile-server fuzzer: the
/// resource, the client that fetches it, and the faults the server answers its requests with, in order (an honest
/// answer once they run out).
struct GeneratedCase: Sendable, CustomStringConvertible {
    /// Which of Courier's façades fetches the resource.
    enum Client: String, Sendable, CaseIterable {
        /// `URLSessionManager.data(for:)`.
        case session
        /// An `HTTPRequestOperation` on an operation queue.
        case operation
        /// A session download task, continued from its resume data when it fails midway.
        case download
        /// `courier download`, then `courier download --continue` when it fails midway.
        case commandLine
    }

    let number: Int
    /// The run's seed: with ``number`` it reproduces the case (``FaultGenerator/init(seed:port:)``).
    let runSeed: UInt64
    let resource: FaultResource
    let client: Client
    let faults: [GeneratedFault]
    /// Seconds without data before the client gives up: short when the server is planned to stall.
    let timeout: TimeInterval

    /// The path the case is served at.
    var path: String { "/fuzz/\(number)" }

    /// The fault for the case's `index`-th request (counted from 0).
    func fault(forRequest index: Int) -> GeneratedFault {
        index < faults.count ? faults[index] : .honest(chunked: false)
    }

    var description: String {
        "case \(number) of run \(runSeed) (\(client.rawValue), \(resource.length) bytes\(resource.gzipped ? ", gzipped" : "")): \(faults.map(\.description).joined(separator: " → "))"
    }
}
