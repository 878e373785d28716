import Foundation
import Synchronization
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The driver's shell against the in-process server: what it does to real exchanges for each of the machine's
/// actions. The façades' behaviour on top of it is covered by the session and operation suites.
@Suite("Driver: exchanges driven against a server")
struct ExchangeDriverTests {
    static func exchange(_ path: String, configure: (inout ExchangeConfiguration) -> Void = { _ in }) async throws -> Exchange {
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configure(&configuration)
        return Exchange(request: URLRequest(url: try await Fixtures.url(path)), configuration: configuration)
    }

    @Test func aRestartPauseStopsTheAttemptAndTheResumeRunsANewOne() async throws {
        let driver = ExchangeDriver(pauseMode: .restart)
        #expect(driver.resume() == .startAttempt(1))
        let first = try await Self.exchange("/slow-body/100?delay=5")
        #expect(driver.register(first, attempt: 1))
        let clock = ContinuousClock()
        let started = clock.now
        #expect(driver.pause() == .stopAttempt)
        await #expect(throws: (any Error).self) { try await first.result() }
        #expect(clock.now - started < .seconds(3), "the stop cancelled the exchange instead of waiting for its body")
        #expect(!driver.counts(attempt: 1), "the stopped attempt's outcome does not complete the request")
        #expect(driver.stoppedAttempt?.attempt == 1)
        #expect(driver.stoppedAttempt?.exchange === first)
        #expect(driver.liveExchange == nil)
        driver.releaseStopped(attempt: 0)
        #expect(driver.stoppedAttempt?.attempt == 1, "only the attempt the façade settled is let go")
        driver.releaseStopped(attempt: 1)
        #expect(driver.stoppedAttempt == nil)

        #expect(driver.resume() == .startAttempt(2))
        let second = try await Self.exchange("/bytes/64?seed=1")
        #expect(!driver.register(second, attempt: 1), "a late exchange of the stopped attempt is dropped")
        #expect(driver.register(second, attempt: 2))
        #expect(driver.liveExchange === second)
        let result = try await second.result()
        #expect(result.data?.count == 64)
        #expect(driver.counts(attempt: 2))
        #expect(driver.complete())
        #expect(!driver.complete(), "once")
        #expect(driver.liveExchange == nil)
        #expect(driver.exchange === second, "the last exchange stays for its metrics")
    }

    @Test func aCancelBeforeTheExchangeExistsReachesIt() async throws {
        let driver = ExchangeDriver(pauseMode: .holdConnection)
        #expect(driver.start() == 1)
        #expect(driver.cancel() == .cancelAttempt)
        let exchange = try await Self.exchange("/slow-body/100?delay=5")
        let clock = ContinuousClock()
        let started = clock.now
        #expect(driver.register(exchange, attempt: 1), "the cancelled attempt still runs, to report its cancellation")
        await #expect(throws: (any Error).self) { try await exchange.result() }
        #expect(clock.now - started < .seconds(3))
        #expect(driver.counts(attempt: 1), "its outcome completes the request")
    }

    @Test func aHeldExchangeReadsOnAfterTheResume() async throws {
        let driver = ExchangeDriver(pauseMode: .holdConnection)
        #expect(driver.start() == 1)
        #expect(driver.pause() == .pauseExchange)
        let exchange = try await Self.exchange("/bytes/4096?seed=2")
        #expect(driver.register(exchange, attempt: 1))
        #expect(exchange.isPaused, "a pause that came before the exchange holds it")
        #expect(driver.resume() == .resumeExchange)
        let result = try await exchange.result()
        #expect(result.data?.count == 4096)
        #expect(driver.counts(attempt: 1))
    }

    @Test func progressReachesStreamsAndBlocksAndStreamsEndAtCompletion() async throws {
        let driver = ExchangeDriver(pauseMode: .holdConnection)
        let blockTotals = Mutex<[Int64]>([])
        driver.addProgressBlock(.download) { progress in blockTotals.withLock { $0.append(progress.totalBytes) } }
        let updates = driver.progressUpdates(.download)
        let uploads = driver.progressUpdates(.upload)
        let reader = Task { await updates.reduce(into: [Int64]()) { $0.append($1.totalBytes) } }
        #expect(driver.start() == 1)
        let exchange = try await Self.exchange("/stream-bytes/200000?seed=3&chunk_size=10000") { configuration in
            configuration.handlers.downloadProgress = { [driver] progress in driver.report(progress, .download) }
        }
        #expect(driver.register(exchange, attempt: 1))
        _ = try await exchange.result()
        #expect(driver.received.totalBytes == 200_000)
        #expect(driver.sent.totalBytes == 0)
        #expect(driver.complete())
        let seen = await reader.value
        #expect(seen.last == 200_000, "the stream saw the newest total before it ended")
        #expect(blockTotals.withLock { $0.last } == 200_000)
        var uploadsSeen = 0
        for await _ in uploads { uploadsSeen += 1 }
        #expect(uploadsSeen == 0, "the upload stream ended with nothing to say")
        var late = 0
        for await _ in driver.progressUpdates(.download) { late += 1 }
        #expect(late == 0, "a stream asked for after completion ends at once")
    }

    @Test func anAttemptStartsOnlyOnceThePreviousAttemptsTaskEnded() async throws {
        let driver = ExchangeDriver(pauseMode: .restart)
        let order = Mutex<[String]>([])
        #expect(driver.resume() == .startAttempt(1))
        // The first attempt's task ends when the test says so (deaf to cancellation, as a slow stage can be).
        let release = Mutex<CheckedContinuation<Void, Never>?>(nil)
        driver.launch(attempt: 1) { _ in
            await withCheckedContinuation { continuation in release.withLock { $0 = continuation } }
            order.withLock { $0.append("first ended") }
        }
        #expect(await eventually { release.withLock { $0 != nil } })
        #expect(driver.pause() == .stopAttempt)
        #expect(driver.resume() == .startAttempt(2))
        let done = Mutex(false)
        driver.launch(attempt: 2) { n in
            order.withLock { $0.append("attempt \(n) began") }
            done.withLock { $0 = true }
        }
        #expect(await throughout(.milliseconds(100)) { !done.withLock { $0 } }, "attempt 2 waits while attempt 1's task runs")
        release.withLock { $0.take() }?.resume()
        #expect(await eventually { done.withLock { $0 } })
        #expect(order.withLock { $0 } == ["first ended", "attempt 2 began"])
    }

    @Test func releasingWakesEveryWaiterAndLaterOnesReturnAtOnce() async throws {
        let driver = ExchangeDriver(pauseMode: .holdConnection)
        let waiters = (0..<3).map { _ in Task { await driver.finished() } }
        #expect(driver.cancel() == .completeCancelled)
        #expect(driver.complete())
        driver.releaseWaiters()
        for waiter in waiters { await waiter.value }
        await driver.finished()
        #expect(driver.phase == .finished)
    }

    /// The caller's events racing from many threads (run under ThreadSanitizer in CI): whatever the order, the request
    /// completes exactly once and every waiter returns.
    @Test(arguments: [DriverPauseMode.holdConnection, .restart])
    func eventsRacingFromManyThreadsCompleteOnce(mode: DriverPauseMode) async throws {
        let url = try await Fixtures.url("/bytes/2048?seed=7")
        for round in 0..<12 {
            let host = RacingHost(driver: ExchangeDriver(pauseMode: mode), url: url)
            let cancels = round.isMultiple(of: 2)
            DispatchQueue.concurrentPerform(iterations: 48) { i in
                switch i % 4 {
                case 0, 3: host.handle(host.driver.resume())
                case 1: host.handle(host.driver.pause())
                default: if cancels, i > 36 { host.handle(host.driver.cancel()) }
                }
            }
            // Leave it running (or cancelled) so that it ends.
            host.handle(host.driver.resume())
            await host.driver.finished()
            let completions = host.completions.load(ordering: .acquiring)
            #expect(completions == 1, "\(mode), round \(round)")
            #expect(host.driver.phase == .finished)
            if !cancels {
                let succeeded = host.succeeded.load(ordering: .acquiring)
                #expect(succeeded, "without a cancel, an attempt's exchange completes it")
            }
        }
    }
}

/// Performs what a driver asks, as a façade would, with real exchanges; counts completions.
private final class RacingHost: Sendable {
    let driver: ExchangeDriver
    let url: URL
    let completions = Atomic<Int>(0)
    let succeeded = Atomic<Bool>(false)

    init(driver: ExchangeDriver, url: URL) {
        self.driver = driver
        self.url = url
    }

    func handle(_ action: DriverStateMachine.Action) {
        switch action {
        case .startAttempt(let n):
            driver.launch(attempt: n) { [self] n in await runAttempt(n) }
        case .completeCancelled:
            finish()
        case .none, .pauseExchange, .resumeExchange, .stopAttempt, .cancelAttempt:
            break
        }
    }

    private func runAttempt(_ n: Int) async {
        let exchange = Exchange(request: URLRequest(url: url), configuration: ExchangeConfiguration(transport: Fixtures.transport))
        guard driver.register(exchange, attempt: n) else { return }
        let result = try? await exchange.result()
        guard driver.counts(attempt: n) else { return }
        if result?.data?.count == 2048 { succeeded.store(true, ordering: .releasing) }
        finish()
    }

    private func finish() {
        guard driver.complete() else { return }
        completions.add(1, ordering: .relaxed)
        driver.releaseWaiters()
    }
}
