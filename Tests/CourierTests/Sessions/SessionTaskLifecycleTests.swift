import Testing
@testable import Courier

@Suite("Sessions: task lifecycle (pure)")
struct SessionTaskLifecycleTests {
    @Test func startsSuspendedAndStartsOnFirstResume() {
        var lifecycle = SessionTaskLifecycle()
        #expect(lifecycle.state == .suspended)
        #expect(lifecycle.resume() == .start)
        #expect(lifecycle.state == .running)
        #expect(lifecycle.resume() == .none)
    }

    @Test func suspendThenResumeUnpauses() {
        var lifecycle = SessionTaskLifecycle()
        _ = lifecycle.resume()
        #expect(lifecycle.suspend() == .pause)
        #expect(lifecycle.state == .suspended)
        #expect(lifecycle.suspend() == .none)
        #expect(lifecycle.resume() == .unpause)
    }

    @Test func cancelBeforeStartCompletesAtOnce() {
        var lifecycle = SessionTaskLifecycle()
        #expect(lifecycle.cancel() == .completeCancelled)
        #expect(lifecycle.state == .canceling)
        #expect(lifecycle.resume() == .none)
        let first = lifecycle.complete()
        let second = lifecycle.complete()
        #expect(first)
        #expect(!second)
        #expect(lifecycle.cancel() == .none)
    }

    @Test func cancelWhileRunningOrSuspendedCancelsTheExchange() {
        var running = SessionTaskLifecycle()
        _ = running.resume()
        #expect(running.cancel() == .cancelExchange)
        var suspended = SessionTaskLifecycle()
        _ = suspended.resume()
        _ = suspended.suspend()
        #expect(suspended.cancel() == .cancelExchange)
        #expect(suspended.suspend() == .none)
    }
}
