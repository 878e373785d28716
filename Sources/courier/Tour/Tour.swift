import Courier
import CourierTestServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The servers the tour talks to: the plain test server and a TLS one with a CA generated at start-up.
struct TourServers: Sendable {
    let plain: TestServer
    let secure: TestServer
}

/// The tour: numbered steps, each with real traffic, run one after the other. Steps print what
/// they see as they go (through ``TourLog``) and end with a one-line summary, or throw
/// ``TourStepFailure`` when something did not behave as expected.
struct Tour: Sendable {
    let servers: TourServers
    /// The session manager most steps use, for the plain server.
    let session: HTTPSessionManager
    /// The operation manager of the operation steps, for the plain server.
    let operations: HTTPRequestOperationManager

    init(servers: TourServers) {
        self.servers = servers
        session = HTTPSessionManager(baseURL: servers.plain.baseURL, configuration: .ephemeral)
        operations = HTTPRequestOperationManager(baseURL: servers.plain.baseURL)
    }

    struct Step {
        let title: String
        let run: (TourLog) async throws -> String
    }

    var steps: [Step] {
        [
            Step(title: "JSON GET", run: jsonGet),
            Step(title: "Form POST", run: formPost),
            Step(title: "JSON POST", run: jsonPost),
            Step(title: "Multipart upload with progress", run: multipartUpload),
            Step(title: "Download paused and resumed", run: pausedDownload),
            Step(title: "Batch of operations", run: batch),
            Step(title: "Redirects", run: redirects),
            Step(title: "Basic authentication", run: basicAuthentication),
            Step(title: "Digest authentication", run: digestAuthentication),
            Step(title: "Cookies", run: cookies),
            Step(title: "Timeout", run: timeout),
            Step(title: "Certificate pinning accepted", run: pinAccepted),
            Step(title: "Wrong pin rejected", run: wrongPinRejected),
            Step(title: "Reachability", run: reachability),
            Step(title: "Images: a coalesced download, decoded, made a thumbnail", run: images),
        ]
    }

    /// How a run went.
    struct Outcome {
        let steps: Int
        let failures: Int
        let elapsed: Duration
    }

    /// Runs every step, printing each one's title, what it saw and its verdict.
    func runAll() async -> Outcome {
        let all = steps
        var failures = 0
        let started = ContinuousClock.now
        for (index, step) in all.enumerated() {
            StandardStreams.writeOutputOrExit(String(format: "%2d. %@", index + 1, step.title) + "\n")
            let stepStarted = ContinuousClock.now
            do {
                let summary = try await step.run(TourLog())
                let milliseconds = Int(((ContinuousClock.now - stepStarted).seconds * 1000).rounded())
                StandardStreams.writeOutputOrExit("    ✔ \(summary) (\(milliseconds) ms)\n")
            } catch {
                failures += 1
                StandardStreams.writeOutputOrExit("    ✘ \(error)\n")
            }
        }
        return Outcome(steps: all.count, failures: failures, elapsed: ContinuousClock.now - started)
    }

    /// Invalidates the session (its transport closes its connections) and cancels anything left
    /// on the operation manager's queue.
    func shutdown() async {
        session.invalidateSessionCancelingTasks(true)
        operations.operationQueue.cancelAllOperations()
    }

    // MARK: Plumbing shared by the steps

    /// The plain server's URL for `path` (which may carry a query).
    func url(_ path: String) throws -> URL {
        guard let url = URL(string: path, relativeTo: servers.plain.baseURL)?.absoluteURL else {
            throw TourStepFailure("cannot make a URL from \(path)")
        }
        return url
    }

    /// `object` as a JSON dictionary, or a failure naming `what`.
    func dictionary(_ object: Any?, _ what: String) throws -> [String: Any] {
        guard let dictionary = object as? [String: Any] else { throw TourStepFailure("\(what) is not a JSON object") }
        return dictionary
    }

    /// The headers the server received with the last request for `path`.
    func lastRecorded(_ path: String) -> RecordedRequest? {
        servers.plain.requestLog.requests.last { $0.path == path }
    }
}

/// Prints a step's live details, indented under its title.
struct TourLog: Sendable {
    func note(_ text: String) {
        StandardStreams.writeOutputOrExit("      \(text)\n")
    }
}

/// What a step saw instead of what it expected.
struct TourStepFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
