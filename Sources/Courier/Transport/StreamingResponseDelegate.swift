import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bridges AsyncHTTPClient's delegate callbacks to Courier's transport contract: the head is
/// handed to an awaiting caller, body parts flow to one reader through a small buffer (an
/// unanswered `didReceiveBodyPart` future stops the socket reads), and request body parts are
/// counted as the socket accepts them.
///
/// The body buffer is the delegate's own rather than NIO's `NIOThrowingAsyncSequenceProducer`: the head, the body
/// and the demand then share one lock and one object per request, where the producer added four objects, a second
/// lock and a delegate to forward the demand (about 8 % of a small GET's transport CPU at 32 requests at a time).
final class StreamingResponseDelegate: HTTPClientResponseDelegate {
    typealias Response = Void

    /// Body parts buffered before the engine is told to stop reading (its `didReceiveBodyPart` future is left
    /// pending): enough to keep the socket busy while the reader catches up, few enough to keep memory flat.
    static let highWatermark = 8
    /// Buffered parts below which a stopped engine reads again.
    static let lowWatermark = 2

    private enum HeadState {
        case waiting(CheckedContinuation<HTTPResponseHead, any Error>?)
        case received(HTTPResponseHead)
        case failed(any Error)
        case delivered
    }

    /// How the body ended, once it has.
    private enum BodyEnd {
        case finished
        case failed(any Error)

        /// What a reader gets at this end: `nil`, or the failure.
        func part() throws -> ByteBuffer? {
            switch self {
            case .finished: return nil
            case .failed(let error): throw error
            }
        }
    }

    private struct State {
        var head: HeadState = .waiting(nil)
        /// Parts received and not yet read, oldest first.
        var buffered: [ByteBuffer] = []
        var bodyEnd: BodyEnd?
        /// The reader waiting for the next part. Nothing is buffered while it waits, except when its wake-up is
        /// scheduled (`readerWakeScheduled`).
        var reader: CheckedContinuation<ByteBuffer?, any Error>?
        /// Whether a part has arrived for the waiting reader and the loop will hand it over after the current read.
        var readerWakeScheduled = false
        /// The engine's read, held back while the buffer is full.
        var pendingDemand: EventLoopPromise<Void>?
        var task: HTTPClient.Task<Void>?
        var cancelRequested = false
    }

    private let state = Mutex(State())
    private let didSendBodyBytes: (@Sendable (Int64) -> Void)?
    private let didSendHead: @Sendable () -> Void
    /// The request's timeouts (`nil`: none); bytes moving in either direction reset them.
    private let watchdog: IdleTimeoutWatchdog?
    /// Holds the response's last read until the engine has taken in the request body's end.
    private let requestBodyEnd: RequestBodyEndGate?

    /// - Parameters:
    ///   - watchdog: The request's timeouts, or `nil`.
    ///   - requestBodyEnd: The gate of a request body of known length (see ``RequestBodyEndGate``), else `nil`.
    ///   - didSendBodyBytes: Called with each request body part the socket accepted.
    ///   - didSendHead: Called once the request head was written to a connection.
    init(
        watchdog: IdleTimeoutWatchdog?, requestBodyEnd: RequestBodyEndGate?,
        didSendBodyBytes: (@Sendable (Int64) -> Void)?, didSendHead: @escaping @Sendable () -> Void
    ) {
        self.watchdog = watchdog
        self.requestBodyEnd = requestBodyEnd
        self.didSendBodyBytes = didSendBodyBytes
        self.didSendHead = didSendHead
    }

    /// Attaches the engine task, so cancellation can reach it.
    func attach(_ task: HTTPClient.Task<Void>) {
        let cancelNow = state.withLock { state -> Bool in
            state.task = task
            return state.cancelRequested
        }
        if cancelNow { task.cancel() }
    }

    /// Cancels the request (before or after the head).
    func cancel() {
        let task = state.withLock { state -> HTTPClient.Task<Void>? in
            state.cancelRequested = true
            return state.task
        }
        task?.cancel()
        // The engine reports a cancellation only after the part it is waiting on: let it go.
        requestBodyEnd?.open()
    }

    /// Whether ``cancel()`` was called: a cancellation the engine reports is then the caller's.
    var cancelRequested: Bool {
        state.withLock { $0.cancelRequested }
    }

    /// Fails the request with `error` (used by the idle watchdog).
    func fail(with error: any Error) {
        let task = state.withLock { $0.task }
        task?.fail(reason: error)
        requestBodyEnd?.open()
    }

    /// Waits for the response head.
    func head() async throws -> HTTPResponseHead {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<HTTPResponseHead, any Error>? = state.withLock { state in
                switch state.head {
                case .waiting:
                    state.head = .waiting(continuation)
                    return nil
                case .received(let head):
                    state.head = .delivered
                    return .success(head)
                case .failed(let error):
                    return .failure(error)
                case .delivered:
                    return .failure(URLError(.unknown))
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }

    private func touchWatchdog() {
        watchdog?.touch()
    }

    // MARK: The body's reader

    /// The next body part, or `nil` at the end; rethrows the request's failure once the parts before it were read.
    /// One reader at a time. Cancelling the reading task cancels the request.
    func nextBodyPart() async throws -> ByteBuffer? {
        // Fast path, without a continuation: a part is usually buffered already, or the body has ended.
        switch state.withLock({ Self.take(from: &$0) }) {
        case .part(let part, let demand):
            release(demand)
            return part
        case .end(let end):
            return try end.part()
        case .mustWait:
            break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (reader: CheckedContinuation<ByteBuffer?, any Error>) in
                let taken = state.withLock { state -> Buffered in
                    let taken = Self.take(from: &state)
                    guard case .mustWait = taken else { return taken }
                    guard state.reader == nil else {
                        return .end(.failed(URLError(.unknown, userInfo: [
                            NSLocalizedDescriptionKey: "A response body was read by two readers at once.",
                        ])))
                    }
                    state.reader = reader
                    return .mustWait
                }
                hand(taken, to: reader)
            }
        } onCancel: {
            let reader = state.withLock { state -> CheckedContinuation<ByteBuffer?, any Error>? in
                if state.bodyEnd == nil { state.bodyEnd = .failed(CancellationError()) }
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(throwing: CancellationError())
            cancel()
        }
    }

    private enum Buffered {
        case part(ByteBuffer, releasing: EventLoopPromise<Void>?)
        case end(BodyEnd)
        case mustWait
    }

    /// The oldest buffered part (with the engine's held-back read once the buffer is below the low watermark), else
    /// the end, else nothing yet.
    private static func take(from state: inout State) -> Buffered {
        guard !state.buffered.isEmpty else { return state.bodyEnd.map { .end($0) } ?? .mustWait }
        let part = state.buffered.removeFirst()
        guard state.buffered.count < lowWatermark, let demand = state.pendingDemand else { return .part(part, releasing: nil) }
        state.pendingDemand = nil
        return .part(part, releasing: demand)
    }

    /// Lets the engine read again.
    private func release(_ demand: EventLoopPromise<Void>?) {
        guard let demand else { return }
        watchdog?.setSuspended(false)
        demand.succeed(())
    }

    /// The reader is gone before the end (the body was dropped unread): the request is cancelled.
    func readerLeft() {
        let ended = state.withLock { $0.bodyEnd != nil }
        if !ended { cancel() }
    }

    // MARK: HTTPClientResponseDelegate

    func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        watchdog?.connectionAcquired()
        didSendHead()
    }

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        touchWatchdog()
        let count = Int64(part.readableBytes)
        requestBodyEnd?.sent(count)
        didSendBodyBytes?(count)
    }

    /// The engine has written the request body's end: a response read held back for it may go on.
    func didSendRequest(task: HTTPClient.Task<Void>) {
        requestBodyEnd?.open()
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        touchWatchdog()
        // A connection the server closes after this response cannot stay leased, and holding its last read would let
        // the close arrive first and fail a response that came whole.
        if !head.isKeepAlive { requestBodyEnd?.open() }
        let continuation = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            guard case .waiting(let continuation) = state.head else { return nil }
            state.head = continuation == nil ? .received(head) : .delivered
            return continuation
        }
        if let continuation {
            // The waiter resumes after the loop has handled the rest of this read, not now: a small response's body
            // and end usually arrive in the same read, and the waiter then finds them buffered instead of waiting for
            // them (one thread hop per response instead of two or three). On the loop itself this wakes nothing.
            task.eventLoop.execute { continuation.resume(returning: head) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    private enum PartAction {
        case `continue`
        case wakeReader
        case stopReading(EventLoopPromise<Void>)
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        touchWatchdog()
        let action = state.withLock { state -> PartAction in
            // After the end (a cancelled reader) the part has nowhere to go.
            guard state.bodyEnd == nil else { return .continue }
            state.buffered.append(buffer)
            if state.reader != nil, !state.readerWakeScheduled {
                state.readerWakeScheduled = true
                return .wakeReader
            }
            guard state.buffered.count >= Self.highWatermark else { return .continue }
            // Backpressure: the engine reads no more from the socket until this future completes, which the reader
            // does once it has drained the buffer below the low watermark (or the request ends).
            let demand = task.eventLoop.makePromise(of: Void.self)
            state.pendingDemand = demand
            return .stopReading(demand)
        }
        let next = readNext(after: action, task: task)
        guard let held = requestBodyEnd?.hold(on: task.eventLoop) else { return next }
        return next.and(held.futureResult).map { _ in }
    }

    /// The engine's next read after a part: at once, or once the reader has drained the buffer.
    private func readNext(after action: PartAction, task: HTTPClient.Task<Void>) -> EventLoopFuture<Void> {
        switch action {
        case .continue:
            return task.eventLoop.makeSucceededVoidFuture()
        case .wakeReader:
            // The engine hands over every part of one socket read before it reads again, and a reader woken at the
            // first part would often take it, find nothing more and wait again before the second (the woken thread
            // can run before the loop's): one thread wake-up per part. Woken after the read, it takes them all in
            // one turn. The loop runs this before its next read, so it adds no latency.
            task.eventLoop.execute { self.wakeReader() }
            return task.eventLoop.makeSucceededVoidFuture()
        case .stopReading(let demand):
            // A reader that holds back is not an idle server.
            if let watchdog {
                watchdog.setSuspended(true)
                // The reader may have taken the demand back between the lock and here (and resumed the watchdog
                // before it was suspended): reading goes on, and so must the idle timeout.
                if state.withLock({ $0.pendingDemand?.futureResult !== demand.futureResult }) { watchdog.setSuspended(false) }
            }
            return demand.futureResult
        }
    }

    /// Hands the waiting reader its next part (or the end), unless cancellation or the end reached it first.
    private func wakeReader() {
        let (reader, taken) = state.withLock { state -> (CheckedContinuation<ByteBuffer?, any Error>?, Buffered) in
            state.readerWakeScheduled = false
            guard let reader = state.reader else { return (nil, .mustWait) }
            let taken = Self.take(from: &state)
            if case .mustWait = taken { return (nil, taken) }
            state.reader = nil
            return (reader, taken)
        }
        if let reader { hand(taken, to: reader) }
    }

    /// Gives `reader` what was taken for it: a part (letting the engine read again when it was held back), or the end.
    private func hand(_ taken: Buffered, to reader: CheckedContinuation<ByteBuffer?, any Error>) {
        switch taken {
        case .part(let part, let demand):
            release(demand)
            reader.resume(returning: part)
        case .end(let end):
            reader.resume(with: Result { try end.part() })
        case .mustWait:
            break
        }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        finish(with: error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        finish(with: nil)
    }

    /// The engine's task failed; when the delegate was told already (the usual case), this changes nothing.
    func engineTaskFailed(_ error: any Error) {
        finish(with: error)
    }

    private func finish(with error: (any Error)?) {
        watchdog?.finish()
        let (head, reader, demand) = state.withLock { state in
            var head: CheckedContinuation<HTTPResponseHead, any Error>?
            if case .waiting(let waiting) = state.head {
                head = waiting
                state.head = .failed(error ?? URLError(.badServerResponse))
            }
            if state.bodyEnd == nil { state.bodyEnd = error.map { .failed($0) } ?? .finished }
            // A reader with parts buffered for it is woken by the scheduled hand-over, which gives it those first.
            let reader = state.buffered.isEmpty ? state.reader : nil
            if reader != nil { state.reader = nil }
            defer { state.pendingDemand = nil }
            return (head, reader, state.pendingDemand)
        }
        if let head { head.resume(throwing: error ?? URLError(.badServerResponse)) }
        if let reader {
            // Nothing is buffered: the end is what it gets.
            if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
        }
        demand?.succeed(())
        requestBodyEnd?.open()
    }
}
