import Testing
@testable import Courier

@Suite("OperationStateMachine")
struct OperationStateMachineTests {
    typealias State = OperationStateMachine.State

    /// Every (from, to, cancelled) triple and whether AFNetworking allows it.
    static let allowed: Set<String> = [
        "ready>executing>false", "ready>executing>true",
        "ready>paused>false", "ready>paused>true",
        "ready>finished>true",
        "executing>paused>false", "executing>paused>true",
        "executing>finished>false", "executing>finished>true",
        "paused>ready>false", "paused>ready>true",
    ]

    @Test("the full transition table", arguments: State.allCases, State.allCases)
    func transitionTable(from: State, to: State) {
        for cancelled in [false, true] {
            var machine = OperationStateMachine(state: from)
            let expected = Self.allowed.contains("\(from.rawValue)>\(to.rawValue)>\(cancelled)")
            #expect(machine.canTransition(to: to, isCancelled: cancelled) == expected)
            let moved = machine.transition(to: to, isCancelled: cancelled)
            #expect(moved == expected, "\(from) → \(to), cancelled \(cancelled)")
            #expect(machine.state == (expected ? to : from), "an invalid transition is ignored")
        }
    }

    @Test("starts ready; finished is final")
    func finishedIsFinal() {
        var machine = OperationStateMachine()
        #expect(machine.state == .ready)
        let started = machine.transition(to: .executing, isCancelled: false)
        let finished = machine.transition(to: .finished, isCancelled: false)
        #expect(started && finished)
        for target in State.allCases {
            let moved = machine.transition(to: target, isCancelled: true)
            #expect(!moved)
        }
        #expect(machine.state == .finished)
    }
}
