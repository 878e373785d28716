import Testing
@testable import Courier

@Suite("Exchange state machine")
struct ExchangeStateMachineTests {
    typealias Machine = ExchangeStateMachine

    /// A machine driven into each phase through legal transitions only.
    static func machine(in phase: ExchangePhase) -> Machine {
        var machine = Machine()
        switch phase {
        case .idle:
            break
        case .awaitingResponse:
            _ = machine.start()
        case .receivingBody:
            _ = machine.start()
            _ = machine.receivedHead()
        case .completed:
            _ = machine.start()
            _ = machine.receivedHead()
            _ = machine.bodyFinished()
        case .failed:
            _ = machine.start()
            _ = machine.fail()
        case .cancelled:
            _ = machine.start()
            _ = machine.cancel()
        }
        #expect(machine.phase == phase)
        return machine
    }

    static let allPhases: [ExchangePhase] = [.idle, .awaitingResponse, .receivingBody, .completed, .failed, .cancelled]

    enum Event: CaseIterable {
        case start, receivedHead, bodyFinished, fail, cancel, pause, resume

        func apply(to machine: inout Machine) -> Machine.Action {
            switch self {
            case .start: machine.start()
            case .receivedHead: machine.receivedHead()
            case .bodyFinished: machine.bodyFinished()
            case .fail: machine.fail()
            case .cancel: machine.cancel()
            case .pause: machine.pause()
            case .resume: machine.resume()
            }
        }
    }

    /// What each event does in each phase (not paused): the action and the phase after it. Anything not listed
    /// is ignored: `.none`, phase unchanged.
    static let expected: [ExchangePhase: [Event: (Machine.Action, ExchangePhase)]] = [
        .idle: [
            .start: (.sendRequest, .awaitingResponse), .fail: (.none, .failed), .cancel: (.refuseStart, .cancelled),
            .pause: (.suspendReading, .idle),
        ],
        .awaitingResponse: [
            .receivedHead: (.deliverBody, .receivingBody), .fail: (.none, .failed),
            .cancel: (.cancelTransport, .cancelled), .pause: (.suspendReading, .awaitingResponse),
        ],
        .receivingBody: [
            .bodyFinished: (.none, .completed), .fail: (.none, .failed),
            .cancel: (.cancelTransport, .cancelled), .pause: (.suspendReading, .receivingBody),
        ],
        .completed: [:],
        .failed: [:],
        .cancelled: [:],
    ]

    @Test(arguments: allPhases)
    func everyEventInEveryPhase(phase: ExchangePhase) throws {
        for event in Event.allCases {
            var machine = Self.machine(in: phase)
            let action = event.apply(to: &machine)
            let (expectedAction, expectedPhase) = Self.expected[phase]?[event] ?? (.none, phase)
            #expect(action == expectedAction, "\(event) in \(phase)")
            #expect(machine.phase == expectedPhase, "\(event) in \(phase)")
        }
    }

    @Test(arguments: allPhases)
    func pauseAndResumeWhileRunning(phase: ExchangePhase) {
        var machine = Self.machine(in: phase)
        let pause = machine.pause()
        if phase.isTerminal {
            #expect(pause == .none)
            #expect(!machine.isPaused)
            return
        }
        #expect(pause == .suspendReading)
        #expect(machine.isPaused)
        #expect(machine.pause() == .none, "a second pause changes nothing")
        #expect(machine.phase == phase, "pausing is orthogonal to the phase")
        #expect(machine.resume() == .resumeReading)
        #expect(!machine.isPaused)
        #expect(machine.resume() == .none, "a second resume changes nothing")
    }

    @Test func endingClearsThePause() {
        for end in [Event.bodyFinished, .fail, .cancel] {
            var machine = Self.machine(in: .receivingBody)
            _ = machine.pause()
            _ = end.apply(to: &machine)
            #expect(machine.phase.isTerminal, "\(end)")
            #expect(!machine.isPaused, "\(end) leaves no pause behind")
            #expect(machine.resume() == .none, "\(end)")
        }
    }

    @Test func pauseBeforeStartHoldsTheFirstChunk() {
        var machine = Machine()
        #expect(machine.pause() == .suspendReading)
        #expect(machine.start() == .sendRequest)
        #expect(machine.isPaused, "still paused after the start")
        #expect(machine.receivedHead() == .deliverBody)
        #expect(machine.isPaused)
    }
}
