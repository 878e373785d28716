import Testing
@testable import Courier

@Suite("Exchange state machine")
struct ExchangeStateMachineTests {
    typealias Machine = ExchangeStateMachine

    /// A machine driven into each phase through legal transitions only.
    static func machine(in phase: Machine.Phase) -> Machine {
        var machine = Machine(maximumRedirects: 2)
        switch phase {
        case .idle:
            break
        case .awaitingResponse:
            _ = machine.start()
        case .followingUp(let reason):
            _ = machine.start()
            switch reason {
            case .redirect: _ = machine.receivedHead(.redirect)
            case .authentication: _ = machine.receivedHead(.challenge)
            case .restart: _ = machine.receivedHead(.resumptionMismatch)
            }
        case .receivingBody:
            _ = machine.start()
            _ = machine.receivedHead(.final)
        case .completed:
            _ = machine.start()
            _ = machine.receivedHead(.final)
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

    static let allPhases: [Machine.Phase] = [
        .idle, .awaitingResponse, .followingUp(.redirect), .followingUp(.authentication), .followingUp(.restart),
        .receivingBody, .completed, .failed, .cancelled,
    ]

    @Test func startOnlyFromIdle() {
        for phase in Self.allPhases {
            var machine = Self.machine(in: phase)
            let action = machine.start()
            if phase == .idle {
                #expect(action == .sendRequest)
                #expect(machine.phase == .awaitingResponse)
            } else {
                #expect(action == Machine.Action.none, "start in \(phase)")
                #expect(machine.phase == phase)
            }
        }
    }

    @Test func headKindsFromAwaitingResponse() {
        var redirect = Self.machine(in: .awaitingResponse)
        #expect(redirect.receivedHead(.redirect) == .prepareFollowUp(.redirect))
        #expect(redirect.phase == .followingUp(.redirect))

        var challenge = Self.machine(in: .awaitingResponse)
        #expect(challenge.receivedHead(.challenge) == .prepareFollowUp(.authentication))
        #expect(challenge.phase == .followingUp(.authentication))

        var mismatch = Self.machine(in: .awaitingResponse)
        #expect(mismatch.receivedHead(.resumptionMismatch) == .prepareFollowUp(.restart))
        #expect(mismatch.follow() == .sendRequest)
        #expect(mismatch.redirectCount == 0 && mismatch.authenticationRetries == 0)

        var final = Self.machine(in: .awaitingResponse)
        #expect(final.receivedHead(.final) == .deliverBody)
        #expect(final.phase == .receivingBody)
    }

    @Test func headIgnoredOutsideAwaitingResponse() {
        for phase in Self.allPhases where phase != .awaitingResponse {
            for kind in [Machine.HeadKind.redirect, .challenge, .resumptionMismatch, .final] {
                var machine = Self.machine(in: phase)
                #expect(machine.receivedHead(kind) == Machine.Action.none, "\(kind) in \(phase)")
                #expect(machine.phase == phase)
            }
        }
    }

    @Test func followingRedirectsCountsAndStopsAtTheLimit() {
        var machine = Self.machine(in: .followingUp(.redirect))
        #expect(machine.follow() == .sendRequest)
        #expect(machine.redirectCount == 1)
        _ = machine.receivedHead(.redirect)
        #expect(machine.follow() == .sendRequest)
        #expect(machine.redirectCount == 2)
        _ = machine.receivedHead(.redirect)
        #expect(machine.follow() == .fail(.tooManyRedirects(limit: 2)))
        #expect(machine.phase == .failed)
    }

    @Test func authenticationRetriesAreCounted() {
        var machine = Self.machine(in: .followingUp(.authentication))
        #expect(machine.follow() == .sendRequest)
        #expect(machine.authenticationRetries == 1)
        #expect(machine.redirectCount == 0)
        #expect(machine.phase == .awaitingResponse)
    }

    @Test func declineDeliversTheResponseItself() {
        for reason in [Machine.FollowUp.redirect, .authentication, .restart] {
            var machine = Self.machine(in: .followingUp(reason))
            #expect(machine.decline() == .deliverBody)
            #expect(machine.phase == .receivingBody)
        }
        for phase in Self.allPhases where !{ if case .followingUp = phase { true } else { false } }() {
            var machine = Self.machine(in: phase)
            #expect(machine.decline() == Machine.Action.none)
            #expect(machine.follow() == Machine.Action.none)
            #expect(machine.phase == phase)
        }
    }

    @Test func bodyFinishesOnlyWhileReceiving() {
        for phase in Self.allPhases {
            var machine = Self.machine(in: phase)
            _ = machine.bodyFinished()
            #expect(machine.phase == (phase == .receivingBody ? .completed : phase))
        }
    }

    @Test func cancelInEveryPhase() {
        for phase in Self.allPhases {
            var machine = Self.machine(in: phase)
            let action = machine.cancel()
            if phase.isTerminal {
                #expect(action == Machine.Action.none)
                #expect(machine.phase == phase, "terminal \(phase) stays")
            } else {
                #expect(machine.phase == .cancelled)
                #expect(action == (phase == .idle ? Machine.Action.none : .cancelTransport), "cancel in \(phase)")
            }
        }
    }

    @Test func failInEveryPhase() {
        for phase in Self.allPhases {
            var machine = Self.machine(in: phase)
            _ = machine.fail()
            #expect(machine.phase == (phase.isTerminal ? phase : .failed))
        }
    }

    @Test func pauseAndResumeInEveryPhase() {
        for phase in Self.allPhases {
            var machine = Self.machine(in: phase)
            let pause = machine.pause()
            if phase.isTerminal {
                #expect(pause == Machine.Action.none)
                #expect(!machine.isPaused)
                #expect(machine.resume() == Machine.Action.none)
                continue
            }
            #expect(machine.isPaused)
            #expect(pause == (phase == .idle ? Machine.Action.none : .suspendReading))
            #expect(machine.pause() == Machine.Action.none, "a second pause does nothing")
            #expect(machine.phase == phase, "pausing keeps the phase")
            let resume = machine.resume()
            #expect(!machine.isPaused)
            #expect(resume == (phase == .idle ? Machine.Action.none : .resumeReading))
            #expect(machine.resume() == Machine.Action.none, "a second resume does nothing")
        }
    }

    @Test func cancelWhilePausedClearsThePause() {
        for phase in Self.allPhases where !phase.isTerminal {
            var machine = Self.machine(in: phase)
            _ = machine.pause()
            _ = machine.cancel()
            #expect(machine.phase == .cancelled)
            #expect(!machine.isPaused)
            #expect(machine.resume() == Machine.Action.none)
        }
    }

    @Test func pausedMachineStillAdvances() {
        var machine = Self.machine(in: .awaitingResponse)
        _ = machine.pause()
        #expect(machine.receivedHead(.final) == .deliverBody)
        #expect(machine.isPaused)
        _ = machine.bodyFinished()
        #expect(machine.phase == .completed)
        #expect(!machine.isPaused)
    }
}
