import Courier
import Foundation

/// One measurement in its own process, for `scripts/bench-compare`:
///
///     bench-client --library courier-session|courier-async|courier-operation|ahc|urlsession
///                            (or courier-exchange|courier-transport: Courier's lower layers, ahc-delegate: AsyncHTTPClient's delegate API; GETs and discarded downloads)
///                  --workload get|download|download-file|upload|upload-multipart
///                  --url URL [--count N] [--concurrency C] [--file PATH] [--warmup N]
///
/// It runs the workload once after a warm-up and prints one JSON line: the bytes moved, the wall
/// time, the process's CPU time (user + system, `getrusage`) spent in the measured part, and the
/// process's peak resident size.
@main
enum BenchClient {
    static func main() async {
        do {
            // COURIER_BENCH_QUIET=1 turns AFNetworking's task and operation notifications off (each is a queue hop),
            // to show what they cost.
            if ProcessInfo.processInfo.environment["COURIER_BENCH_QUIET"] == "1" {
                CourierNotifications.postsTaskNotifications = false
                CourierNotifications.postsOperationNotifications = false
            }
            let options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
            let client = try makeClient(options.library)
            defer { client.close() }
            let runner = WorkloadRunner(options: options, client: client)
            let report = try await runner.run()
            try await client.shutdown()
            print(report.json)
        } catch {
            FileHandle.standardError.write(Data("bench-client: \(error)\n".utf8))
            exit(1)
        }
    }

    static func makeClient(_ library: String) throws -> any BenchLibraryClient {
        switch library {
        case "courier-session": return CourierSessionClient(style: .blocks)
        case "courier-async": return CourierSessionClient(style: .async)
        case "courier-operation": return CourierOperationClient()
        case "courier-exchange": return CourierLayerClient(layer: .exchange)
        case "courier-transport": return CourierLayerClient(layer: .transport)
        case "ahc": return AsyncHTTPClientClient()
        case "ahc-delegate": return AsyncHTTPClientDelegateClient()
        case "urlsession": return FoundationSessionClient()
        default: throw BenchUsageError("unknown --library \(library)")
        }
    }
}

/// A wrong command line.
struct BenchUsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
