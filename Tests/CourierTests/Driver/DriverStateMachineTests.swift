import Testing
@testable import Courier

@Suite("Driver state machine")
struct DriverStateMachineTests {
    typealias Machine = DriverStateMachine
    typealias Action = DriverStateMachine.Action

    static let modes: [DriverPauseMode] = [.holdConnection, .restart]

    /// A machine of `mode` driven into `phase` through legal events only (a running first attempt for every phase
    /// but idle; a cancel from running for cancelling).
    static func machine(_ mode: DriverPauseMode, in phase: DriverPhase) -> Machine {
        var machine = Machine(pauseMode: mode)
        switch phase {
        case .idle:
            break
        case .running:
            _ = machine.resume()
        case .paused:
            _ = machine.resume()
            _ = machine.pause()
        case .cancelling:
            _ = machine.resume()
            _ = machine.cancel()
        case .finished:
            _ = machine.resume()
            _ = machine.complete()
        }
        #expect(machine.phase == phase)
        return machine
    }

    enum Event: CaseIterable {
        case resume, start, pause, cancel, complete

        /// The event's action; `complete` reports `.none` (its result is a `Bool`, checked on its own).
        func apply(to machine: inout Machine) -> Action {
            switch self {
            case .resume: return machine.resume()
            case .start: return machine.start()
            case .pause: return machine.pause()
            case .cancel: return machine.cancel()
            case .complete:
                _ = machine.complete()
                return .none
            }
        }
    }

    /// What each event does in each phase, by pause mode: the action and the phase after it. Anything not listed is
    /// ignored: `.none`, phase unchanged.
    static func expected(_ mode: DriverPauseMode) -> [DriverPhase: [Event: (Action, DriverPhase)]] {
        let hold = mode == .holdConnection
        return [
            .idle: [
                .resume: (.startAttempt(1), .running), .start: (.startAttempt(1), .running),
                .cancel: (.completeCancelled, .cancelling), .complete: (.none, .finished),
            ],
            .running: [
                .pause: (hold ? .pauseExchange : .stopAttempt, .paused), .cancel: (.cancelAttempt, .cancelling),
                .complete: (.none, .finished),
            ],
            .paused: [
                // Holding, the same exchange reads on; restarting, a second attempt continues after the kept bytes.
                .resume: (hold ? .resumeExchange : .startAttempt(2), .running),
                .cancel: (hold ? .cancelAttempt : .completeCancelled, .cancelling), .complete: (.none, .finished),
            ],
            .cancelling: [.complete: (.none, .finished)],
            .finished: [:],
        ]
    }

    @Test(arguments: modes, DriverPhase.allCases)
    func everyEventInEveryPhase(mode: DriverPauseMode, phase: DriverPhase) {
        let table = Self.expected(mode)
        for event in Event.allCases {
            var machine = Self.machine(mode, in: phase)
            let action = event.apply(to: &machine)
            let (expectedAction, expectedPhase) = table[phase]?[event] ?? (.none, phase)
            #expect(action == expectedAction, "\(event) in \(phase), \(mode)")
            #expect(machine.phase == expectedPhase, "\(event) in \(phase), \(mode)")
        }
    }

    @Test(arguments: modes, DriverPhase.allCases)
    func completesOnce(mode: DriverPauseMode, phase: DriverPhase) {
        var machine = Self.machine(mode, in: phase)
        let first = machine.complete()
        let second = machine.complete()
        #expect(first == (phase != .finished))
        #expect(!second, "a second completion changes nothing")
        #expect(!machine.counts(attempt: machine.attempt), "nothing counts once finished")
    }

    /// Which outcome completes the request: only the live, current attempt's.
    @Test(arguments: modes, DriverPhase.allCases)
    func whichAttemptCounts(mode: DriverPauseMode, phase: DriverPhase) {
        let machine = Self.machine(mode, in: phase)
        let live: Bool = switch phase {
        case .idle, .finished: false
        case .running, .cancelling: true
        case .paused: mode == .holdConnection
        }
        #expect(machine.counts(attempt: machine.attempt) == live, "\(phase), \(mode)")
        #expect(!machine.counts(attempt: machine.attempt + 1), "a future attempt")
        #expect(!machine.counts(attempt: machine.attempt - 1), "an older attempt")
    }

    /// What happens to an exchange made after the caller's event: the pause or cancel that found none is applied.
    @Test(arguments: modes, DriverPhase.allCases)
    func registrationOfTheCurrentAttempt(mode: DriverPauseMode, phase: DriverPhase) {
        let machine = Self.machine(mode, in: phase)
        let expected: Machine.Registration = switch phase {
        case .idle, .finished: .discard
        case .running: .run
        case .paused: mode == .holdConnection ? .runPaused : .discard
        case .cancelling: .runCancelled
        }
        #expect(machine.register(attempt: machine.attempt) == expected, "\(phase), \(mode)")
    }

    @Test func aStoppedAttemptIsIgnoredAfterTheRestart() {
        var machine = Machine(pauseMode: .restart)
        #expect(machine.resume() == .startAttempt(1))
        #expect(machine.pause() == .stopAttempt)
        #expect(machine.resume() == .startAttempt(2))
        #expect(!machine.counts(attempt: 1), "the stopped attempt's late outcome")
        #expect(machine.register(attempt: 1) == .discard, "a late exchange of the stopped attempt")
        #expect(machine.counts(attempt: 2))
        #expect(machine.register(attempt: 2) == .run)
    }

    @Test func cancelAfterARestartPauseCompletesAtOnce() {
        var machine = Machine(pauseMode: .restart)
        _ = machine.resume()
        _ = machine.pause()
        #expect(machine.cancel() == .completeCancelled)
        #expect(!machine.counts(attempt: 1), "the stopped attempt does not complete it a second time")
        #expect(machine.resume() == .none)
    }

    @Test func startRunsOnlyARequestThatNeverStarted() {
        var machine = Machine(pauseMode: .holdConnection)
        #expect(machine.start() == .startAttempt(1))
        #expect(machine.pause() == .pauseExchange)
        #expect(machine.start() == .none, "start does not resume a paused request")
        #expect(machine.resume() == .resumeExchange)
        #expect(machine.attempt == 1, "holding, a resume is the same attempt")
    }
}
