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
/// handed to an awaiting caller, body parts flow into a backpressured async sequence (an
/// unanswered `didReceiveBodyPart` future stops the socket reads), and request body parts are
/// counted as the socket accepts them.
final class StreamingResponseDelegate: HTTPClientResponseDelegate {
    typealias Response = Void
    typealias BodyProducer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, BodyDemand
    >

    private enum HeadState {
        case waiting(CheckedContinuation<HTTPResponseHead, any Error>?)
        case received(HTTPResponseHead)
        case failed(any Error)
        case delivered
    }

    private struct State {
        var head: HeadState = .waiting(nil)
        var source: BodyProducer.Source?
        var pendingDemand: EventLoopPromise<Void>?
        /// The consumer asked for more between `yield` answering `.stopProducing` and the promise
        /// being stored: the next stop must not wait, or that demand would be lost for ever.
        var demandArrivedEarly = false
        var task: HTTPClient.Task<Void>?
        var cancelRequested = false
    }

    private let state = Mutex(State())
    private let didSendBodyBytes: (@Sendable (Int64) -> Void)?
    private let didSendHead: @Sendable () -> Void
    let body: BodyProducer
    /// The request's timeouts, and whether its head went out (which may happen before the watchdog is installed).
    private let timing = Mutex<(watchdog: IdleTimeoutWatchdog?, headSent: Bool)>((nil, false))

    /// - Parameters:
    ///   - didSendBodyBytes: Called with each request body part the socket accepted.
    ///   - didSendHead: Called once the request head was written to a connection.
    init(didSendBodyBytes: (@Sendable (Int64) -> Void)?, didSendHead: @escaping @Sendable () -> Void) {
        self.didSendBodyBytes = didSendBodyBytes
        self.didSendHead = didSendHead
        let demand = BodyDemand()
        let made = BodyProducer.makeSequence(
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8),
            finishOnDeinit: true,
            delegate: demand
        )
        self.body = made.sequence
        state.withLock { $0.source = made.source }
        demand.owner.withLock { $0 = WeakDelegate(self) }
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
    }

    /// Whether ``cancel()`` was called: a cancellation the engine reports is then the caller's.
    var cancelRequested: Bool {
        state.withLock { $0.cancelRequested }
    }

    /// Fails the request with `error` (used by the idle watchdog).
    func fail(with error: any Error) {
        let task = state.withLock { $0.task }
        task?.fail(reason: error)
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

    /// Installs the request's watchdog; bytes moving in either direction reset it.
    func install(_ watchdog: IdleTimeoutWatchdog) {
        let headSent = timing.withLock { timing in
            timing.watchdog = watchdog
            return timing.headSent
        }
        if headSent { watchdog.connectionAcquired() }
    }

    private var watchdog: IdleTimeoutWatchdog? { timing.withLock { $0.watchdog } }

    private func touchWatchdog() {
        watchdog?.touch()
    }

    // MARK: HTTPClientResponseDelegate

    func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        let watchdog = timing.withLock { timing in
            timing.headSent = true
            return timing.watchdog
        }
        watchdog?.connectionAcquired()
        didSendHead()
    }

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        touchWatchdog()
        didSendBodyBytes?(Int64(part.readableBytes))
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        touchWatchdog()
        let continuation = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            guard case .waiting(let continuation) = state.head else { return nil }
            state.head = continuation == nil ? .received(head) : .delivered
            return continuation
        }
        continuation?.resume(returning: head)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        touchWatchdog()
        guard let source = state.withLock({ $0.source }) else { return task.eventLoop.makeSucceededVoidFuture() }
        switch source.yield(buffer) {
        case .produceMore, .dropped:
            return task.eventLoop.makeSucceededVoidFuture()
        case .stopProducing:
            let promise = task.eventLoop.makePromise(of: Void.self)
            let mustWait = state.withLock { state -> Bool in
                if state.demandArrivedEarly {
                    state.demandArrivedEarly = false
                    return false
                }
                state.pendingDemand = promise
                return true
            }
            guard mustWait else {
                promise.succeed(())
                return promise.futureResult
            }
            watchdog?.setSuspended(true)
            return promise.futureResult
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
        let (continuation, source, demand) = state.withLock { state in
            var continuation: CheckedContinuation<HTTPResponseHead, any Error>?
            if case .waiting(let waiting) = state.head {
                continuation = waiting
                state.head = .failed(error ?? URLError(.badServerResponse))
            }
            defer {
                state.source = nil
                state.pendingDemand = nil
            }
            return (continuation, state.source, state.pendingDemand)
        }
        if let continuation { continuation.resume(throwing: error ?? URLError(.badServerResponse)) }
        if let error { source?.finish(error) } else { source?.finish() }
        demand?.succeed(())
    }

    // MARK: Demand from the consumer

    fileprivate func consumerWantsMore() {
        let promise = state.withLock { state -> EventLoopPromise<Void>? in
            guard let pending = state.pendingDemand else {
                state.demandArrivedEarly = true
                return nil
            }
            state.pendingDemand = nil
            return pending
        }
        if promise != nil { watchdog?.setSuspended(false) }
        promise?.succeed(())
    }

    fileprivate func consumerStopped() {
        cancel()
    }
}

/// The body sequence's delegate; forwards demand to the response delegate without retaining it
/// (the sequence is owned by the response delegate, so a strong reference would be a cycle).
final class BodyDemand: NIOAsyncSequenceProducerDelegate {
    fileprivate let owner = Mutex(WeakDelegate(nil))

    func produceMore() {
        owner.withLock { $0.delegate }?.consumerWantsMore()
    }

    func didTerminate() {
        owner.withLock { $0.delegate }?.consumerStopped()
    }
}

fileprivate struct WeakDelegate {
    weak var delegate: StreamingResponseDelegate?
    init(_ delegate: StreamingResponseDelegate?) { self.delegate = delegate }
}
