import Foundation

/// Runs one workload: a warm-up, then the measured part with `concurrency` workers.
struct WorkloadRunner {
    let options: BenchOptions
    let client: any BenchLibraryClient

    /// What one run measured.
    struct Report {
        var library: String
        var workload: String
        var requests: Int
        var concurrency: Int
        var bytes: Int
        var seconds: Double
        var cpuMicroseconds: Int64
        var peakResidentBytes: Int64

        var json: String {
            let perRequest = requests > 0 ? Double(cpuMicroseconds) / Double(requests) : 0
            let megabytesPerSecond = seconds > 0 ? Double(bytes) / 1_000_000 / seconds : 0
            return """
            {"library":"\(library)","workload":"\(workload)","requests":\(requests),"concurrency":\(concurrency),\
            "bytes":\(bytes),"seconds":\(String(format: "%.6f", seconds)),"cpu_us":\(cpuMicroseconds),\
            "cpu_us_per_request":\(String(format: "%.2f", perRequest)),"mb_per_s":\(String(format: "%.1f", megabytesPerSecond)),\
            "peak_rss_mb":\(String(format: "%.1f", Double(peakResidentBytes) / 1_048_576))}
            """
        }
    }

    func run() async throws -> Report {
        let operation = try makeOperation()
        let isSmall = options.workload == "get"
        let count = max(options.count, 1)
        let workers = isSmall ? max(1, min(options.concurrency, count)) : 1
        if isSmall {
            try await runConcurrently(total: options.warmup, workers: workers, operation)
        }
        let startUsage = ProcessUsage.now()
        let start = ContinuousClock.now
        let bytes = try await runConcurrently(total: count, workers: workers, operation)
        let elapsed = start.duration(to: .now)
        let endUsage = ProcessUsage.now()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Report(
            library: options.library, workload: options.workload, requests: count, concurrency: workers,
            bytes: bytes, seconds: seconds, cpuMicroseconds: endUsage.cpuMicroseconds - startUsage.cpuMicroseconds,
            peakResidentBytes: endUsage.peakResidentBytes
        )
    }

    private func makeOperation() throws -> @Sendable () async throws -> Int {
        let client = self.client
        let url = options.url
        switch options.workload {
        case "get":
            return { try await client.get(url) }
        case "download":
            return { try await client.downloadDiscarding(url) }
        case "download-file":
            let file = try options.requiredFile()
            return {
                try? FileManager.default.removeItem(at: file)
                defer { try? FileManager.default.removeItem(at: file) }
                return try await client.download(url, to: file)
            }
        case "upload":
            let file = try options.requiredFile()
            return { try await client.upload(file, to: url) }
        case "upload-multipart":
            let file = try options.requiredFile()
            return { try await client.uploadMultipart(file, to: url) }
        default:
            throw BenchUsageError("unknown --workload \(options.workload)")
        }
    }

    /// Runs `total` operations on `workers` concurrent loops; returns the bytes they moved.
    @discardableResult
    private func runConcurrently(total: Int, workers: Int, _ operation: @escaping @Sendable () async throws -> Int) async throws -> Int {
        guard total > 0 else { return 0 }
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                let share = total / workers + (worker < total % workers ? 1 : 0)
                group.addTask {
                    var bytes = 0
                    for _ in 0..<share { bytes += try await operation() }
                    return bytes
                }
            }
            var bytes = 0
            for try await part in group { bytes += part }
            return bytes
        }
    }
}
