import Courier
import CourierQueue
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download of `courier batch --queue` as a job of the durable queue: a GET of its URL, without header fields (each
/// worker adds its own `-H`, `-u` and session, so no credential lands in the store), with
///
/// - an id made from the URL and the output (a SHA-256 name-based UUID, version 8), so that a batch file added again
///   (the run after a crash, or every machine's) adds each download once (``JobOptions/jobID``);
/// - the output, relative to the output directory, in the ordering key `courier-batch:OUTPUT`: a worker on any machine
///   reads where the file goes from the job itself, and two jobs writing one file never run at once.
///
/// A job read back comes from a store other processes write: its output is taken only when it is a plain relative
/// path inside the worker's output directory.
enum BatchQueueJob {
    /// The ordering key's prefix.
    static let keyPrefix = "courier-batch:"

    /// A job read back that is not a download of a batch, or whose output would leave the output directory.
    struct Foreign: Error, CustomStringConvertible {
        let description: String
    }

    /// `entry`'s output relative to `directory`.
    /// - Throws: ``CLIFailure`` (usage) for an output outside it: each worker puts the files under its own --output-dir.
    static func relativeOutput(of entry: BatchFile.Entry, directory: URL) throws -> String {
        let base = directory.standardizedFileURL.path
        let path = entry.output.standardizedFileURL.path
        let prefix = base.hasSuffix("/") ? base : base + "/"
        guard path.hasPrefix(prefix), path.count > prefix.count else {
            throw CLIFailure.usage("line \(entry.line): with --queue, every output must be inside --output-dir (\(path) is not)")
        }
        return String(path.dropFirst(prefix.count))
    }

    /// The job's request and options for downloading `url` to `relativeOutput`.
    static func job(url: URL, relativeOutput: String) -> (URLRequest, JobOptions) {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        return (request, JobOptions(orderingKey: keyPrefix + relativeOutput, jobID: id(url: url, relativeOutput: relativeOutput)))
    }

    /// The id of the download of `url` to `relativeOutput`.
    static func id(url: URL, relativeOutput: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data("courier-batch\n\(url.absoluteString)\n\(relativeOutput)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80   // version 8: made by the application's own rule (RFC 9562)
        bytes[8] = (bytes[8] & 0x3F) | 0x80   // the RFC's variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The download `job` stands for, its output placed in `directory`.
    /// - Throws: ``Foreign`` for a job that is not a GET of an http(s) URL with a batch's ordering key, or whose output
    ///   is absolute, empty, or has an empty, `.` or `..` component.
    static func entry(of job: QueuedJob, directory: URL) throws(Foreign) -> BatchFile.Entry {
        guard let key = job.orderingKey, key.hasPrefix(keyPrefix), let url = job.request.url,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
              (job.request.method ?? "GET").uppercased() == "GET"
        else {
            throw Foreign(description: "job \(job.id.uuidString.lowercased()) is not a download of a courier batch")
        }
        let relative = String(key.dropFirst(keyPrefix.count))
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.hasPrefix("/"), relative.utf8.count <= 4096, !relative.contains("\0"),
              components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else {
            throw Foreign(description: "job \(job.id.uuidString.lowercased()): \(relative.debugDescription) is not a path inside the output directory")
        }
        return BatchFile.Entry(line: 0, url: url, output: directory.appendingPathComponent(relative).standardizedFileURL)
    }
}
