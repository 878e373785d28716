@testable import Courier
import Foundation
import Testing

/// The pure state machine, driven by hand: timers fire only when the test says so.
@Suite("Activity indicator state machine")
struct ActivityIndicatorStateMachineTests {
    typealias Machine = ActivityIndicatorStateMachine

    /// An enabled machine; most tests here use AFNetworking 3's activation delay of 1 s.
    private func enabledMachine(activationDelay: TimeInterval = 1.0) -> Machine {
        var machine = Machine()
        machine.activationDelay = activationDelay
        _ = machine.setEnabled(true)
        return machine
    }

    /// The generation of the timer the last effects scheduled.
    private func scheduled(_ effects: [Machine.Effect]) -> (delay: TimeInterval, generation: UInt64)? {
        for case .scheduleTimer(let delay, let generation) in effects { return (delay, generation) }
        return nil
    }

    @Test func defaults() {
        let machine = Machine()
        #expect(machine.phase == .notActive)
        #expect(machine.activationDelay == 0, "AFNetworking 2.0 shows the indicator at once")
        #expect(machine.completionDelay == 0.17)
        #expect(!machine.isEnabled)
        #expect(!machine.isIndicatorVisible)
    }

    @Test func shortRequestNeverShows() throws {
        var machine = enabledMachine()
        let start = try #require(scheduled(machine.incrementActivityCount()))
        #expect(start.delay == 1.0)
        #expect(machine.phase == .delayingStart)
        #expect(machine.decrementActivityCount().isEmpty)
        #expect(machine.phase == .notActive)
        #expect(machine.timerFired(generation: start.generation).isEmpty, "the stale activation timer is ignored")
        #expect(!machine.isIndicatorVisible)
    }

    @Test func longRequestShowsAfterActivationDelayAndHidesAfterCompletionDelay() throws {
        var machine = enabledMachine()
        let start = try #require(scheduled(machine.incrementActivityCount()))
        #expect(machine.timerFired(generation: start.generation) == [.setVisible(true)])
        #expect(machine.phase == .active)
        let end = try #require(scheduled(machine.decrementActivityCount()))
        #expect(end.delay == 0.17)
        #expect(machine.phase == .delayingEnd)
        #expect(machine.isIndicatorVisible)
        #expect(machine.timerFired(generation: end.generation) == [.setVisible(false)])
        #expect(machine.phase == .notActive)
    }

    @Test func newActivityDuringCompletionDelayKeepsTheIndicatorOn() throws {
        var machine = enabledMachine()
        let start = try #require(scheduled(machine.incrementActivityCount()))
        _ = machine.timerFired(generation: start.generation)
        let end = try #require(scheduled(machine.decrementActivityCount()))
        #expect(machine.incrementActivityCount().isEmpty, "no flicker")
        #expect(machine.phase == .active)
        #expect(machine.timerFired(generation: end.generation).isEmpty)
        #expect(machine.isIndicatorVisible)
    }

    @Test func overlappingActivitiesKeepItActiveUntilTheLastEnds() throws {
        var machine = enabledMachine()
        let start = try #require(scheduled(machine.incrementActivityCount()))
        #expect(machine.incrementActivityCount().isEmpty)
        _ = machine.timerFired(generation: start.generation)
        #expect(machine.decrementActivityCount().isEmpty)
        #expect(machine.phase == .active)
        #expect(scheduled(machine.decrementActivityCount()) != nil)
        #expect(machine.phase == .delayingEnd)
    }

    @Test func countNeverGoesBelowZero() {
        var machine = enabledMachine()
        #expect(machine.decrementActivityCount().isEmpty)
        #expect(machine.activityCount == 0)
        _ = machine.incrementActivityCount()
        #expect(machine.activityCount == 1)
    }

    /// AFNetworking 2.0: shown as soon as a request starts, hidden 0.17 s after the last one ended, without a
    /// flicker between back-to-back requests.
    @Test func withoutAnActivationDelayTheIndicatorShowsAtOnce() throws {
        var machine = enabledMachine(activationDelay: 0)
        #expect(machine.incrementActivityCount() == [.setVisible(true)])
        #expect(machine.phase == .active)
        let end = try #require(scheduled(machine.decrementActivityCount()))
        #expect(end.delay == 0.17)
        #expect(machine.incrementActivityCount().isEmpty, "a request within the delay keeps it on")
        #expect(machine.timerFired(generation: end.generation).isEmpty)
        let last = try #require(scheduled(machine.decrementActivityCount()))
        #expect(machine.timerFired(generation: last.generation) == [.setVisible(false)])
        #expect(machine.phase == .notActive)
    }

    @Test func disabledMachineCountsButNeverShows() throws {
        var machine = Machine()
        machine.activationDelay = 1.0
        #expect(machine.incrementActivityCount().isEmpty)
        #expect(machine.activityCount == 1)
        #expect(machine.phase == .notActive)
        let start = try #require(scheduled(machine.setEnabled(true)), "enabling with activity running arms the delay")
        #expect(machine.timerFired(generation: start.generation) == [.setVisible(true)])
        #expect(machine.setEnabled(false) == [.setVisible(false)])
        #expect(machine.phase == .notActive)
    }
}
