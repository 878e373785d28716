@testable import Courier
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #32, item 1: a content-decoded body is never continued by `Range` (a range counts the bytes as sent), and a
/// `206` in another coding never continues kept bytes. Against a hostile server that sends gzip whatever the request
/// accepts and drops the first connection midway, and against nginx compressing on the fly (`gzip on`), through a
/// session download task's resume data and an operation's archive: the saved bytes are exactly the representation
/// as sent, or its decoding — never a mix.
@Suite("Data safety: decoded bytes are never continued by Range", .timeLimit(.minutes(3)))
struct DecodedResumptionTests {
    /// The resource: numbered lines, its gzip representation, and how much of it the first answer sends.
    static let text = Data((0..<20_000).map { "line \($0) of the decoded resumption test\n" }.joined().utf8)
    static let gzip = HostileGzip.compress(text)
    static let cut = gzip.count / 2

    /// `/gz`: always gzip (even to `Accept-Encoding: identity`), strong `ETag`; the first request gets half of the
    /// gzip bytes and a closed connection, a range request the rest of the gzip bytes.
    static func startServer() async throws -> HostileServer {
        let served = Atomic<Int>(0)
        return try await HostileServer.start { request, connection in
            let common: [(String, String)] = [("Content-Encoding", "gzip"), ("ETag", "\"g1\""), ("Content-Type", "text/plain")]
            if let range = request.header("Range"), range.hasPrefix("bytes="), let start = Int(range.dropFirst(6).dropLast()), start < gzip.count {
                try await connection.writeHead("206 Partial Content", common + [
                    ("Content-Range", "bytes \(start)-\(gzip.count - 1)/\(gzip.count)"), ("Content-Length", "\(gzip.count - start)"),
                ])
                try await connection.write(gzip.suffix(from: start))
                return .close
            }
            try await connection.writeHead("200 OK", common + [("Content-Length", "\(gzip.count)")])
            if served.add(1, ordering: .relaxed).oldValue == 0 {
                try await connection.write(gzip.prefix(cut))
                // `/gz?stall`: the connection stays open and silent (for a pause); `/gz`: it closes.
                try await Task.sleep(for: request.query("stall") != nil ? .seconds(20) : .milliseconds(50))
                return .close
            }
            try await connection.write(gzip)
            return .close
        }
    }

    /// The first download fails midway with resume data; the resumed one finishes.
    static func downloadTwice(_ request: URLRequest, server: HostileServer) async throws -> (resumption: DownloadResumption, saved: Data) {
        let manager = SessionFixtures.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        var resumeData: Data?
        do {
            _ = try await manager.download(request, to: destination)
            Issue.record("the first download was not cut")
        } catch {
            resumeData = DownloadTask.resumeData(from: error)
        }
        let data = try #require(resumeData, "the cut download left no resume data")
        let resumption = try DownloadResumeData(data: data).resumption
        _ = try await manager.download(resumingWith: data, to: destination)
        return (resumption, try Data(contentsOf: destination))
    }

    @Test func decodedBytesStartOverInsteadOfBeingContinued() async throws {
        let server = try await Self.startServer()
        defer { Task { await server.stop() } }
        // The session asks for gzip and decodes it: the kept bytes are decoded ones.
        let (resumption, saved) = try await Self.downloadTwice(URLRequest(url: server.url("/gz")), server: server)
        #expect(resumption.keptBytesAreDecoded && resumption.contentCoding == "gzip" && !resumption.canResume)
        #expect(saved == Self.text, "\(saved.count) bytes saved, \(Self.text.count) decoded")
        let requests = server.requests(to: "/gz")
        #expect(requests.count == 2 && requests.allSatisfy { $0.header("Range") == nil }, "\(requests.map { $0.header("Range") })")
    }

    @Test func gzipSentToAnIdentityRequestIsKeptAsSentAndContinued() async throws {
        let server = try await Self.startServer()
        defer { Task { await server.stop() } }
        // As `courier download` asks: identity. The server sends gzip anyway; its bytes are kept as sent.
        var request = URLRequest(url: server.url("/gz"))
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let (resumption, saved) = try await Self.downloadTwice(request, server: server)
        #expect(!resumption.keptBytesAreDecoded && resumption.contentCoding == "gzip" && resumption.canResume)
        #expect(saved == Self.gzip, "\(saved.count) bytes saved, \(Self.gzip.count) sent")
        let requests = server.requests(to: "/gz")
        #expect(requests.last?.header("Range") == "bytes=\(resumption.offset)-")
    }

    @Test func a206InAnotherCodingNeverContinuesTheKeptBytes() throws {
        let url = URL(string: "http://127.0.0.1/gz")!
        let kept = DownloadResumption(offset: 10, entityTag: "\"g1\"", completeLength: 100)
        let plain = try #require(HTTPURLResponse(url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: [
            "Content-Range": "bytes 10-99/100", "ETag": "\"g1\"",
        ]))
        let gzipped = try #require(HTTPURLResponse(url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: [
            "Content-Range": "bytes 10-99/100", "ETag": "\"g1\"", "Content-Encoding": "gzip",
        ]))
        #expect(kept.outcome(of: plain) == .continued(from: 10))
        #expect(kept.outcome(of: gzipped) == .mismatch)
        var gzipKept = kept
        gzipKept.contentCoding = "gzip"
        #expect(gzipKept.outcome(of: gzipped) == .continued(from: 10))
        #expect(gzipKept.outcome(of: plain) == .mismatch)
    }

    /// An operation paused in a decoded body continues by starting over, and so does one restored from its archive
    /// (which records that the body was decoded).
    @Test func aPausedOrArchivedOperationStartsOverAfterDecodedBytes() async throws {
        let server = try await Self.startServer()
        defer { Task { await server.stop() } }
        let file = Fixtures.temporaryFile("decoded-operation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let operation = HTTPRequestOperation(request: URLRequest(url: server.url("/gz?stall"), timeoutInterval: 30))
        operation.transport = Fixtures.transport
        operation.outputFileURL = file
        PauseTrigger(threshold: 4096).install(on: operation)
        OperationQueue().addOperation(operation)
        try #require(await eventually { operation.isPaused || operation.isFinished })
        try #require(operation.isPaused, "\(String(describing: operation.error))")
        let archive = operation.makeArchive()
        #expect(archive.response?.decodedContentCoding == "gzip")
        #expect(archive.resumption?.keptBytesAreDecoded == true && archive.resumption?.canResume == false)
        let restored = try JSONDecoder().decode(OperationArchive.self, from: JSONEncoder().encode(archive))
        #expect(restored.response?.makeResponse(fallback: nil)?.decodedContentCoding == "gzip", "the archive keeps the fact")
        operation.resume()
        await operation.finished()
        #expect(operation.error == nil, "\(String(describing: operation.error))")
        #expect(try Data(contentsOf: file) == Self.text)
        #expect(server.requests(to: "/gz").allSatisfy { $0.header("Range") == nil })
    }

    /// nginx gzips `/encoded/text.txt` on the fly for the session's `Accept-Encoding: gzip, deflate`; the download is
    /// stopped with resume data midway and resumed: it starts over (nginx logs no range) and saves the file exactly.
    @Test(.enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() })
    func nginxGzipOnTheFlyIsResumedByStartingOver() async throws {
        let manager = try NginxInterop.sessionManager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let probe = NginxInterop.probe()
        let request = try NginxInterop.request("encoded/text.txt", probe: probe)
        let reached = Mutex<DownloadTask?>(nil)
        let resumeData = Mutex<Data?>(nil)
        let stopped = AsyncStream<Void>.makeStream()
        manager.setDownloadTaskDidWriteDataBlock { _, task, _, written, _ in
            guard written > 256 << 10, let task = reached.withLock({ value -> DownloadTask? in defer { value = nil }; return value }) else { return }
            task.cancel(byProducingResumeData: { data in
                resumeData.withLock { $0 = data }
                stopped.continuation.finish()
            })
        }
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        let task = manager.downloadTask(with: request, destination: { _, _ in destination }, completionHandler: nil)
        reached.withLock { $0 = task }
        task.resume()
        for await _ in stopped.stream {}
        let data = try #require(resumeData.withLock { $0 }, "no resume data")
        let resumption = try DownloadResumeData(data: data).resumption
        #expect(resumption.keptBytesAreDecoded && resumption.offset > 0)
        manager.setDownloadTaskDidWriteDataBlock(nil)
        _ = try await manager.download(resumingWith: data, to: destination)
        #expect(try Data(contentsOf: destination) == (try Data(contentsOf: NginxInterop.servedFile("encoded/text.txt"))))
        let lines = try await NginxInterop.accessLog(probe: probe, count: 2)
        #expect(lines.count == 2 && lines.allSatisfy { $0.status == 200 }, "\(lines.map(\.status))")
    }
}

/// gzip through the system's zlib (`gzip -c`), for the hostile server's representation.
enum HostileGzip {
    static func compress(_ data: Data) -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        guard (try? process.run()) != nil else { return Data() }
        let writer = Thread {
            input.fileHandleForWriting.write(data)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return compressed
    }
}
