import Courier
import CourierQueue
import Foundation
import SQLiteNIO
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A queue store is a file anyone can edit and a disk can damage: what cannot be read back is refused with a typed
/// error naming the file or the job, and the rest of the queue goes on.
@Suite("RequestQueue bad input", .timeLimit(.minutes(2)))
struct QueueBadInputTests {
    @Test("a file that is not an SQLite database is refused, naming it")
    func aFileThatIsNotADatabaseIsRefused() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-queue-\(UUID().uuidString)").path
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try await SQLiteQueueStore.open(path: path)
            Issue.record("a file of Z bytes opened as a queue store")
        } catch let error as QueueStoreError {
            guard case .unreadableStore(let named, let reason) = error else { throw error }
            #expect(named == path)
            #expect(reason.contains("not a database"), "\(reason)")
        }
    }

    @Test("rows holding impossible values are dead-lettered naming their job; the other jobs run")
    func impossibleRowsAreDeadLettered() async throws {
        let fixture = try await QueueFixture.start()
        defer { Task { await fixture.stop() } }
        let events = QueueEventLog(fixture.queue)
        var ids: [UUID] = []
        for index in 0..<6 {
            ids.append(try await fixture.queue.enqueue(try fixture.request("/anything?row=\(index)", method: "POST")))
        }
        // Another connection edits four rows as no queue writes them.
        let editor = try await SQLiteConnection.open(storage: .file(path: fixture.path))
        let edits = [
            "UPDATE courier_jobs SET attempts = -7 WHERE id = ?",
            "UPDATE courier_jobs SET state = 'bogus' WHERE id = ?",
            "UPDATE courier_jobs SET request = X'7B2275726C223A' WHERE id = ?",
            "UPDATE courier_jobs SET not_before = 'soon' WHERE id = ?",
        ]
        for (edit, id) in zip(edits, ids) {
            _ = try await editor.query(edit, [.text(id.uuidString)])
        }
        try await editor.close()

        try await fixture.queue.drain()
        await events.waitFor(4) { if case .deadLettered = $0 { true } else { false } }
        events.stop()
        let deadLettered = events.events.compactMap { entry -> (UUID?, String)? in
            if case .deadLettered(let id, let reason) = entry.event { return (id, reason) }
            return nil
        }
        #expect(deadLettered.count == 4)
        for (field, id) in zip(["attempts", "state", "request", "not_before"], ids) {
            let found = deadLettered.first { $0.0 == id }
            #expect(found?.1.contains(id.uuidString) == true, "job \(id): \(String(describing: found))")
            #expect(found?.1.contains(field) == true, "job \(id): \(String(describing: found))")
        }
        for id in ids[4...] {
            #expect(try await fixture.queue.job(id)?.state == .succeeded)
        }
        #expect(fixture.server.requestLog.count == 2)
    }

    @Test("a job whose body file is gone is dead-lettered naming it; the next job runs")
    func aMissingBodyFileDeadLettersItsJob() async throws {
        let fixture = try await QueueFixture.start()
        defer { Task { await fixture.stop() } }
        let big = Data(repeating: 0x41, count: 100_000)
        let lost = try await fixture.queue.enqueue(try fixture.request("/post", method: "POST", body: big))
        let kept = try await fixture.queue.enqueue(try fixture.request("/post", method: "POST", body: big))
        try FileManager.default.removeItem(atPath: fixture.path + ".bodies/" + lost.uuidString)
        try await fixture.queue.drain()
        let job = try #require(try await fixture.queue.job(lost))
        #expect(job.state == .deadLettered)
        #expect(job.outcome?.error?.description.contains("missing") == true)
        #expect(job.outcome?.error?.description.contains(lost.uuidString) == true)
        #expect(try await fixture.queue.job(kept)?.state == .succeeded)
        #expect(fixture.server.requestLog.count == 1)
    }

    @Test("a request no transport would send is refused at enqueue with the reason")
    func unsendableRequestsAreRefused() async throws {
        let fixture = try await QueueFixture.start()
        defer { Task { await fixture.stop() } }
        var badHeader = try fixture.request("/get?header")
        badHeader.setValue("a\u{1}b", forHTTPHeaderField: "X-Note")
        var badMethod = try fixture.request("/get?method")
        badMethod.httpMethod = "GE T"
        let noHost = URLRequest(url: try #require(URL(string: "ftp://example.com/file")))
        for (request, words) in [(badHeader, "X-Note"), (badMethod, "method"), (noHost, "scheme")] {
            do {
                try await fixture.queue.enqueue(request)
                Issue.record("\(request) was queued")
            } catch let error as QueueStoreError {
                #expect(error.description.contains(words), "\(error)")
            }
        }
        #expect(try await fixture.queue.jobs().isEmpty)
    }
}
