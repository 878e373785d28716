import Foundation

/// The command line of `bench-client`.
struct BenchOptions: Sendable {
    var library = "courier-session"
    var workload = "get"
    var url: URL
    var count = 1_000
    var concurrency = 1
    var warmup = 200
    /// The upload source (upload workloads) or the download destination (download-file).
    var file: URL?

    init(arguments: [String]) throws {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let key = arguments[index]
            guard key.hasPrefix("--"), index + 1 < arguments.count else {
                throw BenchUsageError("expected --option value pairs, got \(key)")
            }
            values[String(key.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
        guard let text = values["url"], let url = URL(string: text), url.host != nil else {
            throw BenchUsageError("--url with an absolute http URL is required")
        }
        self.url = url
        library = values["library"] ?? library
        workload = values["workload"] ?? workload
        count = try Self.integer(values["count"], default: count, name: "count")
        concurrency = try Self.integer(values["concurrency"], default: concurrency, name: "concurrency")
        warmup = try Self.integer(values["warmup"], default: warmup, name: "warmup")
        file = values["file"].map { URL(fileURLWithPath: $0) }
    }

    private static func integer(_ text: String?, default value: Int, name: String) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), number >= 0 else { throw BenchUsageError("--\(name) must be a whole number") }
        return number
    }

    /// The file the workload needs, or a usage error.
    func requiredFile() throws -> URL {
        guard let file else { throw BenchUsageError("--file is required for --workload \(workload)") }
        return file
    }
}
