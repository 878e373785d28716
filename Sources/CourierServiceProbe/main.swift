// A child process for the swift-service-lifecycle tests: a ServiceGroup runs a Courier session and a service that
// sends one request through it; a leased operation (GracefulShutdown) runs beside them, started before the group.
//
// Usage: CourierServiceProbe <grace seconds> <server path>
// Prints READY once the request and the operation are in flight, TASK <URLError code or status> when the session's
// task completes, OPERATION <URLError code or 0> when the operation's does, and GROUP ENDED when the group's run
// returns; the process then exits 0. It exits 3 if nothing stops it within a minute.
import Courier
import CourierTestServer
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Sends one request through the session and stops at the group's graceful shutdown, leaving the request to the
/// session's grace period.
struct Requester: Service {
    let session: URLSessionManager
    let url: URL
    let operation: URLConnectionOperation

    func run() async throws {
        let task = session.dataTask(with: URLRequest(url: url)) { response, _, error in
            say("TASK \((error as? URLError)?.errorCode ?? (response as? HTTPURLResponse)?.statusCode ?? -1)")
        }
        task.resume()
        while task.state != .running || !operation.isExecuting {
            try await Task.sleep(for: .milliseconds(5))
        }
        // The session's run() hands the signals over as its first step; the group starts it beside this one.
        try await Task.sleep(for: .milliseconds(200))
        say("READY")
        try await gracefulShutdown()
    }
}

let arguments = CommandLine.arguments
let grace = arguments.count > 1 ? TimeInterval(arguments[1]) ?? 1 : 1
let path = arguments.count > 2 ? arguments[2] : "/delay/30"

let server = try await TestServer.start()
guard let url = URL(string: path, relativeTo: server.baseURL)?.absoluteURL else {
    say("BAD URL")
    exit(2)
}
var configuration = SessionConfiguration.default
configuration.shutdownGracePeriod = grace
let session = URLSessionManager(configuration: configuration)

// A leased operation installs GracefulShutdown's own signal handlers before the group runs; the session's run()
// must take them away, or the signal would be re-raised and end the process by it.
GracefulShutdown.shared.gracePeriod = grace
let operation = URLConnectionOperation(request: URLRequest(url: url))
// The completion block runs after `isFinished` turns true, on a queue of its own: the end waits for this, not for
// `isFinished`, or the process could exit before the line is written.
let reported = Atomic<Bool>(false)
operation.completionBlock = { [operation] in
    say("OPERATION \((operation.error as? URLError)?.errorCode ?? 0)")
    reported.store(true, ordering: .releasing)
}
operation.setShouldExecuteAsBackgroundTask { say("EXPIRED") }
let queue = OperationQueue()
queue.addOperation(operation)

let group = ServiceGroup(
    services: [session, Requester(session: session, url: url, operation: operation)],
    gracefulShutdownSignals: [.sigterm],
    logger: Logger(label: "courier-service-probe")
)
Task {
    try await Task.sleep(for: .seconds(60))
    say("NOT STOPPED")
    exit(3)
}
try await group.run()
while !reported.load(ordering: .acquiring) {
    try await Task.sleep(for: .milliseconds(5))
}
say("GROUP ENDED")
exit(0)
