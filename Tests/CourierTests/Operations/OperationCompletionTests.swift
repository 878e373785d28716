import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Operation completion, batches, copies, notifications, seed 001", .timeLimit(.minutes(1)))
struct OperationCompletionTests {
    @Test("the completion block runs once on the completion queue inside the group, then is released")
    func customQueueAndGroup() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/32?seed=1")
        let queue = DispatchQueue(label: "courier.tests.completion")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let group = DispatchGroup()
        operation.completionQueue = queue
        operation.completionGroup = group
        let calls = Recorder<Int?>()
        operation.completionBlock = { calls.append(DispatchQueue.getSpecific(key: key)) }
        _ = MainQueue.isCurrent
        OperationQueue().addOperation(operation)
        await operation.finished()
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
        #expect(operation.isFinished)
        #expect(calls.all == [42])
        #expect(operation.completionBlock == nil)
    }

    @Test("success and failure blocks; a cancelled operation reaches failure with URLError(.cancelled)")
    func successAndFailure() async throws {
        let good = try await OperationFixtures.operation(HTTPRequestOperation.self, "/bytes/16?seed=2")
        let missing = try await OperationFixtures.operation(HTTPRequestOperation.self, "/status/404")
        let cancelled = try await OperationFixtures.operation(HTTPRequestOperation.self, "/bytes/16")
        let outcomes = Recorder<String>()
        for (name, operation) in [("good", good), ("missing", missing), ("cancelled", cancelled)] {
            operation.setCompletionBlockWithSuccess({ _, object in
                outcomes.append("\(name) success \((object as? Data)?.count ?? -1) main:\(MainQueue.isCurrent)")
            }, failure: { _, error in
                outcomes.append("\(name) failure \((error as? URLError)?.code == .cancelled ? "cancelled" : "\(type(of: error))")")
            })
        }
        cancelled.cancel()
        await OperationFixtures.run([good, missing, cancelled])
        #expect(await eventually { outcomes.all.count == 3 })
        #expect(Set(outcomes.all) == ["good success 16 main:true", "missing failure ResponseSerializationError", "cancelled failure cancelled"])
        #expect(missing.error is ResponseSerializationError)
        #expect(try await good.responseObject() as? Data == TestPayload.bytes(count: 16, seed: 2))
        await #expect(throws: ResponseSerializationError.self) { try await missing.responseObject() }
    }

    @Test("responseString follows the charset; responseStringEncoding defaults to UTF-8")
    func responseString() async throws {
        let latin = #"{"version":1,"request":{"url":"http://127.0.0.1/x","headers":{},"timeoutInterval":60},"state":"finished","totalBytesRead":2,"responseData":"Y+k=","response":{"statusCode":200,"headers":{"Content-Type":"text/plain; charset=iso-8859-1"},"url":"http://127.0.0.1/x"}}"#
        let operation = try JSONDecoder().decode(URLConnectionOperation.self, from: Data(latin.utf8))
        #expect(operation.responseStringEncoding == .isoLatin1)
        #expect(operation.responseString == "c\u{E9}")
        let plain = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/4?seed=1")
        await OperationFixtures.run([plain])
        #expect(plain.responseStringEncoding == .utf8)
    }

    @Test("batch: progress after each completion block, in order, then the completion on main")
    func batch() async throws {
        var operations: [URLConnectionOperation] = []
        let log = Recorder<String>()
        for index in 0..<4 {
            let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/\(10 + index)")
            operation.completionBlock = { log.append("op") }
            operations.append(operation)
        }
        let done = Atomic<Bool>(false)
        let batch = URLConnectionOperation.batch(of: operations, progress: { finished, total in
            log.append("progress \(finished)/\(total)")
        }, completion: { finishedOperations in
            log.append("done \(finishedOperations.count) main:\(MainQueue.isCurrent)")
            done.store(true, ordering: .releasing)
        })
        #expect(batch.count == 5)
        #expect(batch.last?.dependencies.count == 4)
        let queue = OperationQueue()
        for operation in batch { queue.addOperation(operation) }
        #expect(await eventually { done.load(ordering: .acquiring) })
        let entries = log.all
        #expect(entries.last == "done 4 main:true")
        #expect(entries.filter { $0.hasPrefix("progress") } == (1...4).map { "progress \($0)/4" })
        for count in 1...4 {
            let position = try #require(entries.firstIndex(of: "progress \(count)/4"))
            #expect(entries[..<position].filter { $0 == "op" }.count >= count)
        }
    }

    @Test("an empty batch completes at once")
    func emptyBatch() async throws {
        let done = Atomic<Bool>(false)
        let batch = URLConnectionOperation.batch(of: [], progress: nil) { operations in
            #expect(operations.isEmpty)
            done.store(true, ordering: .releasing)
        }
        #expect(batch.count == 1)
        OperationQueue().addOperation(batch[0])
        #expect(await eventually(timeout: .seconds(2)) { done.load(ordering: .acquiring) })
    }

    @Test("copy: request, blocks, queue and group, serializer; no output stream, completion block or state")
    func copySemantics() async throws {
        let original = try await OperationFixtures.operation(HTTPRequestOperation.self, "/bytes/20?seed=4")
        let queue = DispatchQueue(label: "courier.tests.copy")
        let group = DispatchGroup()
        let serializer = JSONResponseSerializer()
        serializer.removesKeysWithNullValues = true
        serializer.acceptableStatusCodes = IndexSet([200, 299])
        serializer.readingOptions = [.fragmentsAllowed]
        let progress = Recorder<Int64>()
        original.completionQueue = queue
        original.completionGroup = group
        original.responseSerializer = serializer
        original.outputStream = OutputStream(toMemory: ())
        original.completionBlock = {}
        original.setDownloadProgressBlock { _, total, _ in progress.append(total) }
        original.cancel()
        let copy = try #require(original.copy() as? HTTPRequestOperation)
        #expect(copy !== original)
        #expect(copy.request.url == original.request.url)
        #expect(copy.completionQueue === queue)
        #expect(copy.completionGroup === group)
        // Its own copy of the serializer, with the same settings (AFNetworking copies it).
        let copied = try #require(copy.responseSerializer as? JSONResponseSerializer)
        #expect(copied !== serializer)
        #expect(copied.removesKeysWithNullValues && copied.acceptableStatusCodes == IndexSet([200, 299]))
        #expect(copied.readingOptions == [.fragmentsAllowed] && copied.acceptableContentTypes == serializer.acceptableContentTypes)
        copied.acceptableStatusCodes = nil
        #expect(serializer.acceptableStatusCodes == IndexSet([200, 299]), "changing the copy's serializer leaves the original's alone")
        #expect(copy.transport != nil)
        #expect(copy.outputStream == nil)
        #expect(copy.completionBlock == nil)
        #expect(!copy.isCancelled && copy.isReady)
        copy.responseSerializer = HTTPResponseSerializer()
        await OperationFixtures.run([copy])
        #expect(copy.responseData == TestPayload.bytes(count: 20, seed: 4))
        #expect(await eventually { progress.all.last == 20 }, "the copy kept the progress block")
    }

    @Test("start and finish notifications on the main queue")
    func notifications() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/8")
        let seen = Recorder<String>()
        let observers = [Notification.Name.courierOperationDidStart, .courierOperationDidFinish].map { name in
            NotificationCenter.default.addObserver(forName: name, object: operation, queue: nil) { note in
                seen.append("\(note.name.rawValue) main:\(MainQueue.isCurrent)")
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        await OperationFixtures.run([operation])
        #expect(await eventually { seen.all.count == 2 })
        #expect(seen.all == ["CourierOperationDidStart main:true", "CourierOperationDidFinish main:true"])
    }

    @Test("seed 001: sendAsynchronousRequest delivers once on the given queue")
    func sendAsynchronousRequest() async throws {
        let url = try await Fixtures.url("/bytes/50?seed=8")
        let queue = OperationQueue()
        let results = Recorder<String>()
        URLConnectionOperation.sendAsynchronousRequest(URLRequest(url: url), queue: queue) { response, data, error in
            results.append("\((response as? HTTPURLResponse)?.statusCode ?? 0) \(data == TestPayload.bytes(count: 50, seed: 8)) \(error == nil) \(OperationQueue.current === queue)")
        }
        #expect(await eventually { !results.all.isEmpty })
        #expect(await throughout(.milliseconds(50)) { results.all.count == 1 }, "delivered once")
        #expect(results.all == ["200 true true true"])
        let (response, data) = try await URLConnectionOperation.sendAsynchronousRequest(URLRequest(url: url))
        #expect(response?.statusCode == 200 && data == TestPayload.bytes(count: 50, seed: 8))
    }

    @Test("seed 001: cancelAsynchronousRequest still calls the handler, with URLError(.cancelled)")
    func cancelAsynchronousRequest() async throws {
        let url = try await Fixtures.url("/slow-body/10?delay=20")
        let results = Recorder<URLError.Code?>()
        let handle = URLConnectionOperation.sendAsynchronousRequest(URLRequest(url: url), queue: nil) { _, _, error in
            results.append((error as? URLError)?.code)
        }
        #expect(await eventually { handle.isExecuting })
        URLConnectionOperation.cancelAsynchronousRequest(handle)
        #expect(await eventually(timeout: .seconds(5)) { !results.all.isEmpty })
        #expect(await throughout(.milliseconds(50)) { results.all.count == 1 }, "delivered once")
        #expect(results.all == [.cancelled])
    }

    @Test("async twin: cancelling the awaiting task cancels the operation")
    func taskCancellation() async throws {
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/slow-body/10?delay=20")
        OperationQueue().addOperation(operation)
        let waiter = Task { _ = try await operation.responseObject() }
        #expect(await eventually { operation.isExecuting })
        waiter.cancel()
        await #expect(throws: URLError.self) { try await waiter.value }
        #expect(operation.isCancelled && operation.isFinished)
    }
}
