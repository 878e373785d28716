import Foundation

/// How one download of a batch ended.
struct BatchResult: Equatable, Sendable {
    let url: URL
    /// The response status, or `nil` when no response arrived.
    let status: Int?
    /// Bytes of the body written to the output (0 for a failure).
    let bytes: Int64
    /// Seconds from the operation's start to its end.
    let seconds: Double
    /// The file written, or `nil` when the download failed (failed outputs are removed, except
    /// files that failed verification, kept for inspection).
    let output: URL?
    /// Why it failed, or `nil` on success.
    let failure: String?
    /// Whether an earlier run had finished it: nothing was sent. Default `false`.
    var alreadyComplete = false
    /// What the result line adds in parentheses (the output's name was taken, say). Default `nil`.
    var note: String?
    /// The URLs tried, mirrors included (1 for a file fetched from its listed URL). Default 1.
    var attempts = 1

    init(url: URL, status: Int?, bytes: Int64, seconds: Double, output: URL?, failure: String?, alreadyComplete: Bool = false) {
        self.url = url
        self.status = status
        self.bytes = bytes
        self.seconds = seconds
        self.output = output
        self.failure = failure
        self.alreadyComplete = alreadyComplete
    }

    /// Whether the file was downloaded.
    var succeeded: Bool { failure == nil }
}

/// The text `courier batch` prints: one line per finished download and a summary table.
enum BatchReport {
    /// "ok    200  1.00 MiB  0.2 s  URL -> output" or "FAIL  404  URL: reason".
    static func resultLine(_ result: BatchResult) -> String {
        let status = result.status.map(String.init) ?? "---"
        if let failure = result.failure {
            return "FAIL  \(status)  \(result.url.absoluteString): \(failure)"
        }
        if result.alreadyComplete {
            return "done  ---  \(ProgressLine.bytes(result.bytes))  \(result.url.absoluteString) -> \(result.output?.path ?? "-") (finished by an earlier run)"
        }
        let note = result.note.map { " (\($0))" } ?? ""
        return "ok    \(status)  \(ProgressLine.bytes(result.bytes))  \(time(result.seconds))  \(result.url.absoluteString) -> \(result.output?.path ?? "-")\(note)"
    }

    /// The summary: a table with URL, STATUS, BYTES, TIME and OUTPUT columns (status "error" when no
    /// response arrived, output "-" when nothing was kept), then "N of M downloads succeeded[, K failed]".
    static func table(_ results: [BatchResult]) -> String {
        let header = ["URL", "STATUS", "BYTES", "TIME", "OUTPUT"]
        let rows = results.map { result in
            [
                result.url.absoluteString,
                result.alreadyComplete ? "done" : result.status.map(String.init) ?? "error",
                String(result.bytes),
                time(result.seconds),
                result.output?.path ?? "-",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                // Padded in characters, as the widths are counted (`padding(toLength:)` counts UTF-16 units, and
                // goes through `NSString`).
                column == cells.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[column] - cell.count))
            }.joined(separator: "  ")
        }
        let failed = results.filter { !$0.succeeded }.count
        var lines = [render(header)] + rows.map(render)
        var footer = "\(results.count - failed) of \(results.count) downloads succeeded"
        if failed > 0 { footer += ", \(failed) failed" }
        lines.append(footer)
        return lines.joined(separator: "\n")
    }

    /// `--report json`: an object with `downloads` (one object per listed file, in list order: `url` (the one that
    /// served it, or the last one tried), `file` (the file written or kept, `null` when none), `bytes`, `sha256` (of
    /// the file, `null` when it failed), `attempts` (URLs tried, mirrors included), `seconds`, `status` (`null` when no
    /// response came), `error` (`null` on success) and `already_complete` (finished by an earlier run)), `succeeded`
    /// and `failed`, with sorted keys, ending with a line break.
    static func json(_ results: [BatchResult]) -> String {
        let downloads: [[String: Any]] = results.map { result in
            let digest = result.succeeded ? result.output.flatMap { try? IntegrityCheck.hash($0, from: 0, algorithm: .sha256) } : nil
            return [
                "url": result.url.absoluteString,
                "file": result.output?.path ?? NSNull(),
                "bytes": result.bytes,
                "sha256": digest.map(ExpectedChecksum.hex) ?? NSNull(),
                "attempts": result.attempts,
                "seconds": (result.seconds * 1000).rounded() / 1000,
                "status": result.status ?? NSNull(),
                "error": result.failure ?? NSNull(),
                "already_complete": result.alreadyComplete,
            ]
        }
        let failed = results.count { !$0.succeeded }
        let report: [String: Any] = ["downloads": downloads, "succeeded": results.count - failed, "failed": failed]
        guard let data = try? JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
            return "{}\n"
        }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Seconds with one decimal: "0.2 s", "12.5 s".
    static func time(_ seconds: Double) -> String {
        ProgressLine.fixed(max(0, seconds), decimals: 1) + " s"
    }
}
