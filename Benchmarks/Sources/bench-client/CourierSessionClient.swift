import Courier
import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Courier through `HTTPSessionManager`: block-style verbs or their async twins for GETs, the
/// session's streamed body (`bytes(for:)`) and download task for downloads, upload tasks and the
/// multipart `POST` for uploads. Completion blocks run on a concurrent queue of the client's own
/// (AFNetworking's default, the main queue, would need a run loop).
final class CourierSessionClient: BenchLibraryClient {
    enum Style { case blocks, async }

    private let manager: HTTPSessionManager
    private let style: Style

    init(style: Style) {
        self.style = style
        // COURIER_BENCH_BARE=1 measures the pipeline without the cache and content decoding stages, to show what
        // they cost (the default configuration has both).
        var configuration = SessionConfiguration.default
        if ProcessInfo.processInfo.environment["COURIER_BENCH_BARE"] == "1" {
            configuration.urlCache = nil
            configuration.contentDecoding = nil
        }
        // COURIER_BENCH_LOG_LEVEL=info|debug|trace gives the session a logger at that level whose handler drops
        // every event, to show what logging costs when it is off (info: Courier logs nothing above debug) and on.
        if let level = ProcessInfo.processInfo.environment["COURIER_BENCH_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) {
            configuration.logger = Logger(label: "bench") { _ in DroppingLogHandler(logLevel: level) }
        }
        manager = HTTPSessionManager(baseURL: nil, configuration: configuration)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.completionQueue = DispatchQueue(label: "bench.completion", attributes: .concurrent)
    }

    func get(_ url: URL) async throws -> Int {
        switch style {
        case .async:
            let (object, _) = try await manager.get(url.absoluteString)
            return (object as? Data)?.count ?? 0
        case .blocks:
            let manager = self.manager
            return try await withCheckedThrowingContinuation { continuation in
                manager.GET(url.absoluteString, parameters: nil, success: { _, object in
                    continuation.resume(returning: (object as? Data)?.count ?? 0)
                }, failure: { _, error in
                    continuation.resume(throwing: error)
                })
            }
        }
    }

    func downloadDiscarding(_ url: URL) async throws -> Int {
        let (response, body) = try await manager.bytes(for: URLRequest(url: url))
        guard (200..<300).contains(response.statusCode) else { throw BenchStatusError(status: response.statusCode) }
        var count = 0
        for try await chunk in body { count += chunk.count }
        return count
    }

    func download(_ url: URL, to file: URL) async throws -> Int {
        let location = try await manager.download(URLRequest(url: url), to: file)
        return try fileSize(location)
    }

    func upload(_ file: URL, to url: URL) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let size = try fileSize(file)
        let manager = self.manager
        return try await withCheckedThrowingContinuation { continuation in
            let task = manager.uploadTask(with: request, fromFile: file) { response, _, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                    continuation.resume(throwing: BenchStatusError(status: status))
                } else {
                    continuation.resume(returning: size)
                }
            }
            task.resume()
        }
    }

    func uploadMultipart(_ file: URL, to url: URL) async throws -> Int {
        let size = try fileSize(file)
        let manager = self.manager
        return try await withCheckedThrowingContinuation { continuation in
            let task = manager.POST(url.absoluteString, parameters: nil, constructingBodyWith: { form in
                try form.appendPart(withFileURL: file, name: "file")
            }, success: { _, _ in
                continuation.resume(returning: size)
            }, failure: { _, error in
                continuation.resume(throwing: error)
            })
            if task == nil { return }
        }
    }

    func shutdown() async throws {
        manager.invalidateSessionCancelingTasks(false)
        try await manager.transport.shutdown()
    }
}

/// A log handler at a given level that drops what reaches it (the events are still made and handed over).
private struct DroppingLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {}
}
