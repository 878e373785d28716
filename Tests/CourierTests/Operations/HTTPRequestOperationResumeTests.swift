import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTPRequestOperation pause and resume", .timeLimit(.minutes(1)))
struct HTTPRequestOperationResumeTests {
    static let length = 48 << 20

    /// Runs `operation` until its progress passes `threshold`, pauses it there, lets `whilePaused`
    /// act, resumes, and waits for the end. Also used by the nginx interop tests.
    func pauseAndResume(_ operation: HTTPRequestOperation, threshold: Int64 = 1 << 20, whilePaused: (HTTPRequestOperation) -> Void = { _ in }) async throws {
        let trigger = PauseTrigger(threshold: threshold)
        trigger.install(on: operation)
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await eventually { operation.isPaused || operation.isFinished })
        try #require(operation.isPaused, "the transfer ended before the pause")
        // The pause holds once the attempt it stopped has ended.
        #expect(await eventually { operation.driver.exchange?.phase.isTerminal != false })
        whilePaused(operation)
        operation.resume()
        await operation.finished()
    }

    @Test("in memory: a 206 continues, the bytes match")
    func memoryResume() async throws {
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(Self.length)")
        try await pauseAndResume(operation)
        #expect(operation.error == nil)
        #expect(operation.response?.statusCode == 206)
        #expect(operation.responseData?.count == Self.length)
        #expect(operation.responseData?.sha256Hex == OperationFixtures.rangeSHA256(count: Self.length))
        #expect(operation.totalBytesRead == Int64(Self.length))
    }

    @Test("to a file: a 206 appends, the file matches")
    func fileResume() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(Self.length)")
        operation.outputFileURL = file
        try await pauseAndResume(operation)
        #expect(operation.error == nil)
        #expect(operation.response?.statusCode == 206)
        #expect(operation.responseData == nil)
        #expect(try sha256Hex(ofFile: file) == OperationFixtures.rangeSHA256(count: Self.length))
    }

    @Test("the validator changed between pause and resume: a 200 starts over cleanly", arguments: [false, true])
    func changedValidator(toFile: Bool) async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(Self.length)")
        if toFile { operation.outputFileURL = file }
        try await pauseAndResume(operation) { operation in
            // What the server said before the pause; the resource has "changed" since.
            operation.storage.withLock { storage in
                guard let old = storage.response, let url = old.url else { return }
                storage.response = HTTPURLResponse(url: url, statusCode: old.statusCode, httpVersion: "HTTP/1.1", headerFields: ["ETag": "\"older\""])
            }
        }
        #expect(operation.error == nil)
        #expect(operation.response?.statusCode == 200)
        let expected = OperationFixtures.rangeSHA256(count: Self.length)
        if toFile {
            #expect(try sha256Hex(ofFile: file) == expected)
        } else {
            #expect(operation.responseData?.sha256Hex == expected)
        }
    }

    @Test("a server that ignores Range: the 200 replaces the kept bytes")
    func serverIgnoresRange() async throws {
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(Self.length)?ignore_range=1")
        try await pauseAndResume(operation)
        #expect(operation.error == nil)
        #expect(operation.response?.statusCode == 200)
        #expect(operation.responseData?.count == Self.length)
        #expect(operation.responseData?.sha256Hex == OperationFixtures.rangeSHA256(count: Self.length))
    }

    @Test("to an output stream on a file: bytes go there, responseData stays nil, pause resumes with 206")
    func outputStreamToFile() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(Self.length)")
        operation.outputStream = OutputStream(toFileAtPath: file.path, append: false)
        try await pauseAndResume(operation)
        #expect(operation.error == nil)
        #expect(operation.responseData == nil)
        #expect(operation.response?.statusCode == 206)
        #expect(try sha256Hex(ofFile: file) == OperationFixtures.rangeSHA256(count: Self.length))
    }

    @Test("an output stream cannot restart: a 200 after a pause fails without rewriting")
    func outputStreamCannotRestart() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(Self.length)?ignore_range=1")
        operation.outputStream = OutputStream(toFileAtPath: file.path, append: false)
        try await pauseAndResume(operation)
        guard case .outputCannotRestart(let written)? = operation.error as? OperationError else {
            Issue.record("expected outputCannotRestart, got \(String(describing: operation.error))")
            return
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)
        #expect(size.int64Value == written)
    }

    /// A resume from another thread the moment the operation reads as paused: it must not be taken for the
    /// transfer the pause stops (it was, when the pause published its state before detaching the transfer: the
    /// pause then cancelled the resumed one, and the download ended `cancelled`).
    @Test("a resume racing the pause that it answers continues the download", arguments: [false, true])
    func resumeRacingPause(toFile: Bool) async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let length = 4 << 20
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/download/\(length)?rate=\(length / 4)")
        if toFile { operation.outputFileURL = file }
        OperationQueue().addOperation(operation)
        try #require(await eventually { operation.totalBytesRead > 0 })
        var rounds = 0
        while !operation.isFinished, rounds < 20 {
            rounds += 1
            let before = operation.totalBytesRead
            // Spins on another thread until the state reads paused, then resumes at once.
            let resumer = Thread {
                let deadline = Date().addingTimeInterval(5)
                while !operation.isPaused, Date() < deadline {}
                operation.resume()
            }
            resumer.start()
            operation.pause()
            #expect(await eventually { operation.isExecuting || operation.isFinished })
            // Bytes flow again before the next round (each round moves the transfer on).
            #expect(await eventually { operation.totalBytesRead > before || operation.isFinished })
        }
        await operation.finished()
        #expect(operation.error == nil, "after \(rounds) pauses: \(String(describing: operation.error))")
        // Compared by digest: a failed `==` on megabytes makes the testing library compute their difference, for hours.
        let body = toFile ? try Data(contentsOf: file) : operation.responseData ?? Data()
        #expect(body.count == length)
        #expect(body.sha256Hex == TestPayload.sha256Hex(count: length, seed: 0))
    }

    @Test("download progress is monotonic and ends at the total")
    func progress() async throws {
        let count = 3 << 20
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/bytes/\(count)?seed=5")
        let seen = Recorder<(Int, Int64, Int64)>()
        operation.setDownloadProgressBlock { seen.append(($0, $1, $2)) }
        await OperationFixtures.run([operation])
        #expect(await eventually { seen.all.last?.1 == Int64(count) })
        let all = seen.all
        #expect(all.count > 1)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.1 + Int64($1.0) == $1.1 })
        #expect(all.allSatisfy { $0.2 == Int64(count) })
        #expect(operation.responseData == TestPayload.bytes(count: count, seed: 5))
    }

    @Test("upload progress ends at the body's length")
    func uploadProgress() async throws {
        var request = URLRequest(url: try await Fixtures.url("/anything"))
        request.httpMethod = "POST"
        request.httpBody = Data(repeating: 7, count: 300_000)
        let operation = HTTPRequestOperation(request: request)
        operation.transport = Fixtures.transport
        let seen = Recorder<Int64>()
        operation.setUploadProgressBlock { _, total, _ in seen.append(total) }
        await OperationFixtures.run([operation])
        #expect(await eventually { seen.all.last == 300_000 })
        #expect(seen.all == seen.all.sorted())
    }
}
