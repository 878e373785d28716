// A child process for the graceful-shutdown lease tests: it starts the in-process test server,
// begins one leased operation, prints READY, and waits for a signal.
//
// Usage: CourierLeaseProbe <grace seconds> <server path>
// Prints EXPIRED when the expiration handler runs and COMPLETED <URLError code or 0> when the
// operation's completion block runs; the process then ends by the signal it received.
import Courier
import CourierTestServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments
let grace = arguments.count > 1 ? TimeInterval(arguments[1]) ?? 1 : 1
let path = arguments.count > 2 ? arguments[2] : "/slow-body/10?delay=30"

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let server = try await TestServer.start()
guard let url = URL(string: path, relativeTo: server.baseURL) else {
    say("BAD URL")
    exit(2)
}
GracefulShutdown.shared.gracePeriod = grace
let operation = URLConnectionOperation(request: URLRequest(url: url.absoluteURL))
operation.completionBlock = { [operation] in
    say("COMPLETED \((operation.error as? URLError)?.errorCode ?? 0)")
}
operation.setShouldExecuteAsBackgroundTask { say("EXPIRED") }
let queue = OperationQueue()
queue.addOperation(operation)
while !operation.isExecuting && !operation.isFinished {
    try await Task.sleep(for: .milliseconds(5))
}
say("READY")
try await Task.sleep(for: .seconds(60))
say("NOT STOPPED")
exit(3)
