import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #35, item 5: `courier batch --queue`. Against nginx sending 1 MiB/s under /slow/, read through its access log:
/// a batch on an SQLite queue killed with SIGKILL midway and run again fetches every byte once (the part files are
/// continued with `Range` and `If-Range`, nothing starts over), and a third run sends nothing; two processes on one
/// PostgreSQL queue, one with the file and one a `--worker` without it, fetch every file exactly once between them.
@Suite(
    "courier batch --queue (nginx)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .timeLimit(.minutes(3))
)
struct CLIBatchQueueTests {
    /// Files of `size` bytes under nginx's /slow/, and the batch file listing them (`URL<TAB>fileN.bin`).
    private struct ServedBatch {
        let names: [String]
        let slow: URL
        let list: URL
        let probe = NginxInterop.probe()

        init(count: Int, size: Int, folder: URL) throws {
            slow = try NginxInterop.servedFile("slow")
            try FileManager.default.createDirectory(at: slow, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            names = (0..<count).map { "queued-\($0)-\(UUID().uuidString).bin" }
            for name in names {
                try NginxInterop.writeServedFile(slow.appendingPathComponent(name), size: size, modified: Date(timeIntervalSince1970: 1_700_000_000))
            }
            list = folder.appendingPathComponent("list.txt")
            let probe = probe
            try names.enumerated().map { index, name in "\(try NginxInterop.url("slow/\(name)", probe: probe).absoluteString)\tfile\(index).bin" }
                .joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        }

        func served(_ index: Int) throws -> Data { try Data(contentsOf: slow.appendingPathComponent(names[index])) }

        func remove() {
            for name in names { try? FileManager.default.removeItem(at: slow.appendingPathComponent(name)) }
        }

        /// The access log's lines for file `index`.
        func lines(_ log: [NginxInterop.LogLine], of index: Int) -> [NginxInterop.LogLine] {
            log.filter { $0.uri.contains(names[index]) }
        }
    }

    @Test("an SQLite-queued batch killed midway continues its part files, fetching every byte once; a third run sends nothing")
    func aKilledQueuedBatchFetchesEveryByteOnce() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let folder = try Fixtures.temporaryDirectory("queued-batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = 3 << 20
        let batch = try ServedBatch(count: 3, size: size, folder: folder)
        defer { batch.remove() }
        let store = folder.appendingPathComponent("batch.sqlite").path
        let arguments = ["batch", batch.list.path, "--queue", store, "--lease", "1", "--concurrency", "3", "--cacert", ca,
                         "--output-dir", folder.path]

        let child = try ChildProcess("courier", arguments)
        #expect(await fileGrows(folder.appendingPathComponent("file0.bin.part"), beyond: 1 << 20), "file0.bin.part never passed 1 MiB")
        child.send(SIGKILL)
        _ = try await child.finish(timeout: .seconds(10))
        for index in 0..<3 {
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("file\(index).bin").path), "file\(index).bin took its final name")
        }

        // The killed process's leases run out (1 s); the jobs go back and this run continues their part files.
        let again = try await ChildProcess.run("courier", arguments)
        #expect(again.status == 0, "\(again.standardOutput) \(again.standardError)")
        for index in 0..<3 {
            #expect(try Data(contentsOf: folder.appendingPathComponent("file\(index).bin")) == (try batch.served(index)), "file\(index).bin")
        }
        let log = try await NginxInterop.settledAccessLog(probe: batch.probe, count: 6)
        for index in 0..<3 {
            let lines = batch.lines(log, of: index)
            // One request from the first byte; each later one continues the part with If-Range, from past where the
            // kill came. Bytes twice only those the kill caught in flight: nginx counts what it wrote to the socket
            // (and the heads), so the killed process's socket buffers are counted but never arrived.
            #expect(lines.filter { $0.range == nil }.count == 1, "file\(index): \(lines.map(\.description))")
            #expect(lines.filter { $0.range != nil }.allSatisfy { $0.status == 206 && $0.ifRange != nil && ($0.rangeStart ?? 0) > 0 },
                    "file\(index): \(lines.map(\.description))")
            let sent = lines.map(\.bytesSent).reduce(0, +)
            #expect(sent >= Int64(size) && sent < Int64(size) + (512 << 10), "file\(index): \(sent) bytes sent for \(size)")
        }

        let third = try await ChildProcess.run("courier", arguments)
        #expect(third.status == 0, "\(third.standardOutput) \(third.standardError)")
        #expect(third.standardError.contains("3 of 3 files finished already"), "\(third.standardError)")
        // Exactly the lines of the runs before: the third sent nothing.
        _ = try await NginxInterop.settledAccessLog(probe: batch.probe, count: log.count)
        let listed = try await ChildProcess.run("courier", ["queue", "list", store, "--state", "succeeded"])
        #expect(listed.standardOutput.split(separator: "\n").count == 3, "\(listed.standardOutput)")
    }

    @Test("a batch and a --worker without its file drain one PostgreSQL queue: every file fetched once, by one of them")
    func twoWorkersShareAPostgresQueue() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let database = try await PostgresDatabases.make()
        let folder = try Fixtures.temporaryDirectory("shared-batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = 8
        let batch = try ServedBatch(count: count, size: 1 << 20, folder: folder)
        defer { batch.remove() }
        let first = folder.appendingPathComponent("first"), second = folder.appendingPathComponent("second")
        let common = ["--queue", database, "--concurrency", "2", "--cacert", ca]

        let adding = try ChildProcess("courier", ["batch", batch.list.path, "--output-dir", first.path] + common)
        // The worker joins once the file's jobs are in the queue (a worker finding none has nothing to drain).
        let added = try await eventually(timeout: .seconds(30), every: .milliseconds(50)) {
            // (psql by hand: the table does not exist until the batch has opened the store.)
            let outcome = try await ShellCommand.run("psql -X -q -A -t '\(database)' -c 'SELECT count(*) FROM courier_jobs'")
            return String(decoding: outcome.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "\(count)"
        }
        #expect(added, "the batch's jobs never reached the queue")
        let working = try ChildProcess("courier", ["batch", "--worker", "--output-dir", second.path] + common)
        let (one, two) = (try await adding.finish(timeout: .seconds(90)), try await working.finish(timeout: .seconds(90)))
        #expect(one.status == 0, "\(one.standardOutput) \(one.standardError)")
        #expect(two.status == 0, "\(two.standardOutput) \(two.standardError)")

        var byFirst = 0
        for index in 0..<count {
            let name = "file\(index).bin"
            let places = [first, second].map { $0.appendingPathComponent(name) }.filter { FileManager.default.fileExists(atPath: $0.path) }
            #expect(places.count == 1, "\(name) is in \(places.map(\.path))")
            if let place = places.first {
                #expect(try Data(contentsOf: place) == (try batch.served(index)), "\(place.path)")
                if place.path.hasPrefix(first.path) { byFirst += 1 }
            }
        }
        #expect(byFirst > 0 && byFirst < count, "the batch fetched \(byFirst) of \(count) files, the worker the rest")
        let log = try await NginxInterop.settledAccessLog(probe: batch.probe, count: count)
        for index in 0..<count {
            let lines = batch.lines(log, of: index)
            #expect(lines.count == 1 && lines.first?.status == 200, "file\(index): \(lines.map(\.description))")
        }
    }
}

/// `courier batch --queue`'s usage errors: each names what is wrong and exits 2 before anything is added or sent.
@Suite("courier batch --queue usage")
struct CLIBatchQueueUsageTests {
    @Test("a FILE with --worker, neither, --session, an output outside --output-dir, --worker without --queue")
    func usageErrors() async throws {
        let folder = try Fixtures.temporaryDirectory("queued-batch-usage")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("list.txt")
        try "http://127.0.0.1:9/a.bin\t/etc/elsewhere.bin\n".write(to: list, atomically: true, encoding: .utf8)
        let store = folder.appendingPathComponent("q.sqlite").path
        let cases: [([String], String)] = [
            (["batch", list.path, "--queue", store, "--worker"], "give no FILE"),
            (["batch", "--queue", store], "or --worker"),
            (["batch", list.path, "--queue", store, "--session", "demo"], "--session is not used with --queue"),
            (["batch", list.path, "--queue", store, "--output-dir", folder.path], "must be inside --output-dir"),
            (["batch", "--worker"], "give --queue STORE"),
        ]
        for (arguments, message) in cases {
            let outcome = try await ChildProcess.run("courier", arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.contains(message), "\(arguments): \(outcome.standardError)")
        }
        // Nothing was added: the store was never made, or holds no job.
        let listed = try await ChildProcess.run("courier", ["queue", "list", store])
        #expect(listed.standardOutput.isEmpty, "\(listed.standardOutput)")
    }
}
