@testable import Courier
import Foundation
import Testing

/// The pure state machine, driven by hand: timers fire only when the test says so.
@Suite("Activity indicator state machine")
struct ActivityIndicatorStateMachineTests {
    typealias Machine = ActivityIndicatorStateMachine

    private func enabledMachine() -> Machine {
        var machine = Machine()
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
        #expect(machine.activationDelay == 1.0)
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

    @Test func disabledMachineCountsButNeverShows() throws {
        var machine = Machine()
        #expect(machine.incrementActivityCount().isEmpty)
        #expect(machine.activityCount == 1)
        #expect(machine.phase == .notActive)
        let start = try #require(scheduled(machine.setEnabled(true)), "enabling with activity running arms the delay")
        #expect(machine.timerFired(generation: start.generation) == [.setVisible(true)])
        #expect(machine.setEnabled(false) == [.setVisible(false)])
        #expect(machine.phase == .notActive)
    }
}
