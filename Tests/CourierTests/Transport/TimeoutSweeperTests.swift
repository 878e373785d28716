@testable import Courier
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// The transport's request timeouts: one sweeper checks every watched request on one event loop (no timer per
/// request). Each limit runs out once, not before its time and not much after it; a finished request leaves at once.
/// The upper bounds leave room for a busy machine; the lower ones are exact.
@Suite("Transport: request timeouts checked by one sweeper")
struct TimeoutSweeperTests {
    /// A fresh sweeper, a watchdog on it and what it reported.
    private final class Watch: Sendable {
        let sweeper = TimeoutSweeper(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let expiries = Mutex<[(IdleTimeoutWatchdog.Expiry, ContinuousClock.Instant)]>([])

        func start(idle: TimeAmount?, wait: TimeAmount?, on connection: Bool = true) -> IdleTimeoutWatchdog {
            let watchdog = IdleTimeoutWatchdog(idleTimeout: idle, connectionWait: wait, sweeper: sweeper)
            if connection { watchdog.connectionAcquired() }
            watchdog.start { [self] expiry in expiries.withLock { $0.append((expiry, ContinuousClock.now)) } }
            return watchdog
        }

        var count: Int { expiries.withLock { $0.count } }
        var first: (IdleTimeoutWatchdog.Expiry, ContinuousClock.Instant)? { expiries.withLock { $0.first } }
    }

    @Test func anIdleRequestTimesOutOnceAfterItsTimeout() async throws {
        let watch = Watch()
        let started = ContinuousClock.now
        _ = watch.start(idle: .milliseconds(100), wait: nil)
        #expect(await eventually(timeout: .seconds(5)) { watch.count == 1 })
        let (expiry, at) = try #require(watch.first)
        #expect(expiry == .idle)
        #expect(at - started >= .milliseconds(100) && at - started < .seconds(1), "expired after \(at - started)")
        #expect(await eventually { watch.sweeper.count == 0 }, "an expired request is no longer watched")
        #expect(await throughout(.milliseconds(200)) { watch.count == 1 }, "it expires once")
    }

    @Test func bytesMovingKeepARequestAliveAndASuspendedOneDoesNotExpire() async throws {
        let watch = Watch()
        let moving = watch.start(idle: .milliseconds(100), wait: nil)
        let paused = watch.start(idle: .milliseconds(100), wait: nil)
        paused.setSuspended(true)
        let quiet = await throughout(.milliseconds(300)) {
            moving.touch()
            return watch.count == 0
        }
        #expect(quiet, "300 ms of steady activity, and a reader holding back, with a 100 ms idle timeout")
        paused.setSuspended(false)
        #expect(await eventually(timeout: .seconds(5)) { watch.count == 2 }, "both expire once nothing moves")
    }

    @Test func aFinishedRequestLeavesAtOnceAndNeverExpires() async throws {
        let watch = Watch()
        let watchdog = watch.start(idle: .milliseconds(50), wait: nil)
        #expect(watch.sweeper.count == 1)
        watchdog.finish()
        #expect(watch.sweeper.count == 0)
        #expect(await throughout(.milliseconds(200)) { watch.count == 0 })
        // Finished before it started: never watched.
        let early = IdleTimeoutWatchdog(idleTimeout: .milliseconds(50), connectionWait: nil, sweeper: watch.sweeper)
        early.finish()
        early.start { _ in Issue.record("a finished watchdog expired") }
        #expect(watch.sweeper.count == 0)
    }

    @Test func theConnectionWaitRunsOutWhileWaitingAndNotOnceConnected() async throws {
        let watch = Watch()
        let started = ContinuousClock.now
        _ = watch.start(idle: .seconds(60), wait: .milliseconds(100), on: false)
        let connected = watch.start(idle: .seconds(60), wait: .milliseconds(100), on: true)
        #expect(await eventually(timeout: .seconds(5)) { watch.count == 1 })
        let (expiry, at) = try #require(watch.first)
        #expect(expiry == .connectionWait)
        #expect(at - started >= .milliseconds(100) && at - started < .seconds(1), "expired after \(at - started)")
        #expect(await throughout(.milliseconds(200)) { watch.count == 1 }, "the request on a connection only has its 60 s idle timeout")
        connected.finish()
    }

    /// A request with a short limit joining while the sweeps are a quarter of a second apart (for a long one) gets
    /// a sweep of its own in time: about 32 ms after it joined, where waiting for the long one's next sweep would take
    /// 250 ms (the bound between them leaves a busy machine room).
    @Test func aShortLimitJoiningBetweenLongSweepsIsCheckedInTime() async throws {
        let watch = Watch()
        let long = watch.start(idle: .seconds(60), wait: nil)
        #expect(long.tick == IdleTimeoutWatchdog.longestTick)
        let started = ContinuousClock.now
        let short = watch.start(idle: .milliseconds(32), wait: nil)
        #expect(short.tick == .milliseconds(1))
        #expect(await eventually(timeout: .seconds(5)) { watch.count == 1 })
        let (_, at) = try #require(watch.first)
        #expect(at - started >= .milliseconds(32) && at - started < .milliseconds(200), "expired after \(at - started)")
        long.finish()
        #expect(watch.sweeper.count == 0)
    }
}
