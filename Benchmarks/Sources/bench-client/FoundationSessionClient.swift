import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Foundation's `URLSession` (libcurl underneath on Linux): completion-handler data, download and
/// upload tasks, and a data delegate that counts and drops the bytes of a discarded download.
final class FoundationSessionClient: BenchLibraryClient {
    private let session: URLSession
    private let discarding: URLSession
    private let counter = DiscardingDelegate()

    init() {
        session = URLSession(configuration: .default)
        discarding = URLSession(configuration: .default, delegate: counter, delegateQueue: nil)
    }

    func get(_ url: URL) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: url) { data, response, error in
                Self.finish(continuation, bytes: data?.count ?? 0, response: response, error: error)
            }.resume()
        }
    }

    func downloadDiscarding(_ url: URL) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let task = discarding.dataTask(with: url)
            counter.begin(task.taskIdentifier, continuation)
            task.resume()
        }
    }

    func download(_ url: URL, to file: URL) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            session.downloadTask(with: url) { location, response, error in
                var size = 0
                if let location {
                    size = (try? fileSize(location)) ?? 0
                    try? FileManager.default.moveItem(at: location, to: file)
                }
                Self.finish(continuation, bytes: size, response: response, error: error)
            }.resume()
        }
    }

    func upload(_ file: URL, to url: URL) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let size = try fileSize(file)
        return try await withCheckedThrowingContinuation { continuation in
            session.uploadTask(with: request, fromFile: file) { _, response, error in
                Self.finish(continuation, bytes: size, response: response, error: error)
            }.resume()
        }
    }

    private static func finish(_ continuation: CheckedContinuation<Int, any Error>, bytes: Int, response: URLResponse?, error: (any Error)?) {
        if let error {
            continuation.resume(throwing: error)
        } else if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
            continuation.resume(throwing: BenchStatusError(status: status))
        } else {
            continuation.resume(returning: bytes)
        }
    }

    func shutdown() async throws {
        session.finishTasksAndInvalidate()
        discarding.finishTasksAndInvalidate()
    }
}

/// Counts the bytes of each data task and drops them.
final class DiscardingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var continuation: CheckedContinuation<Int, any Error>
        var bytes = 0
    }

    private let pending = Mutex<[Int: Pending]>([:])

    func begin(_ identifier: Int, _ continuation: CheckedContinuation<Int, any Error>) {
        pending.withLock { $0[identifier] = Pending(continuation: continuation) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLock { $0[dataTask.taskIdentifier]?.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            entry.continuation.resume(throwing: error)
        } else {
            entry.continuation.resume(returning: entry.bytes)
        }
    }
}
