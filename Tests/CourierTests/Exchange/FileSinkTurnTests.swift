import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Courier

/// The file sink's fast paths: a directory operation taken at once or waited for on the queue (never two at a time),
/// a fresh file made with one `open(2)` or an existing one cut and continued, and a body's last bytes written and
/// closed in the task or through the writer's queue, in order either way.
@Suite("File sinks: the directory turn, the writer's open and its close")
struct FileSinkTurnTests {
    /// What the directory operations of one test saw.
    private final class Turns: Sendable {
        let inside = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let ran = Atomic<Int>(0)

        /// One operation: counts itself in, holds the turn a moment so that other callers find it taken, counts out.
        func operation() -> Int {
            let now = inside.add(1, ordering: .sequentiallyConsistent).newValue
            _ = most.max(now, ordering: .relaxed)
            usleep(200)
            inside.subtract(1, ordering: .sequentiallyConsistent)
            return ran.add(1, ordering: .relaxed).newValue
        }
    }

    @Test("directory operations never overlap, whether a task takes the turn at once or waits for it")
    func directoryOperationsRunOneAtATime() async throws {
        let turns = Turns()
        let blockingDone = DispatchGroup()
        for _ in 0..<16 {
            DispatchQueue.global().async(group: blockingDone) { _ = DirectoryOperationQueue.runBlocking { turns.operation() } }
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<64 { group.addTask { try await DirectoryOperationQueue.run { turns.operation() } } }
            for try await _ in group {}
        }
        await withCheckedContinuation { continuation in blockingDone.notify(queue: .global()) { continuation.resume() } }
        #expect(turns.ran.load(ordering: .relaxed) == 80)
        #expect(turns.most.load(ordering: .relaxed) == 1)
    }

    @Test("an operation's error reaches its caller on either path")
    func errorsComeBack() async {
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await DirectoryOperationQueue.run { () throws -> Int in throw Refused() } }
        #expect(throws: Refused.self) { try DirectoryOperationQueue.runBlocking { () throws -> Int in throw Refused() } }
    }

    @Test("a blocking caller that finds the turn taken waits for it on the queue and gets its operation's error")
    func aBlockingCallerWaitingForTheTurnGetsItsError() async {
        struct Refused: Error {}
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Queues of their own, each with a thread: the global queues' pool may be slow to add one beside two blocked.
        DispatchQueue(label: "holder").async { DirectoryOperationQueue.runBlocking { holding.signal(); release.wait() } }
        let refused: Bool = await withCheckedContinuation { continuation in
            DispatchQueue(label: "waiter").async {
                holding.wait()
                // The holder lets go a moment later, while this caller waits for the turn.
                DispatchQueue(label: "releaser").asyncAfter(deadline: .now() + .milliseconds(50)) { release.signal() }
                do {
                    _ = try DirectoryOperationQueue.runBlocking { () throws -> Int in throw Refused() }
                    continuation.resume(returning: false)
                } catch {
                    continuation.resume(returning: error is Refused)
                }
            }
        }
        #expect(refused)
    }

    /// Writes `chunks` through a file writer opened at `offset` of `file`, and finishes it.
    private func write(_ chunks: [Data], to file: URL, offset: Int64) async throws {
        var writer = try await FileBodyWriter(url: file, offset: offset)
        for chunk in chunks { try await writer.write(chunk) }
        try await writer.finish()
    }

    private static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    /// Sizes about ``FileWriteQueue/inlineCloseLimit`` (64 KiB) and the writer's 256 KiB batches.
    @Test("a body reaches its file whole and in order, closed in the task or through the queue", arguments: [
        0, 10, 65_536, 65_537, 300 * 1024, 1024 * 1024 + 3,
    ])
    func bodiesArriveWholeAtEverySize(size: Int) async throws {
        #expect(FileWriteQueue.inlineCloseLimit == 65_536)
        let folder = try Fixtures.temporaryDirectory("file-sink")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body.bin")
        let body = Self.bytes(size, seed: 7)
        let chunks = stride(from: 0, to: body.count, by: 7 * 1024).map { body[$0..<min($0 + 7 * 1024, body.count)] }.map { Data($0) }
        try await write(chunks, to: file, offset: 0)
        #expect(try Data(contentsOf: file) == body)
    }

    @Test("a fresh download replaces what a name held; a continued one keeps its first bytes and cuts the rest")
    func existingFilesAreCutToWhatIsKept() async throws {
        let folder = try Fixtures.temporaryDirectory("file-sink")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body.bin")
        try Self.bytes(5000, seed: 1).write(to: file)
        try await write([Self.bytes(100, seed: 2)], to: file, offset: 0)
        #expect(try Data(contentsOf: file) == Self.bytes(100, seed: 2))

        try Self.bytes(5000, seed: 3).write(to: file)
        try await write([Self.bytes(50, seed: 4)], to: file, offset: 1000)
        #expect(try Data(contentsOf: file) == Self.bytes(5000, seed: 3).prefix(1000) + Self.bytes(50, seed: 4))
    }

    @Test("a dangling link at the path is refused, not followed")
    func aDanglingLinkIsRefused() async throws {
        let folder = try Fixtures.temporaryDirectory("file-sink")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body.bin")
        let elsewhere = folder.appendingPathComponent("elsewhere.bin")
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: elsewhere)
        await #expect(throws: URLError.self) { try await write([Self.bytes(10, seed: 5)], to: file, offset: 0) }
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
    }
}
