import Foundation

/// The activity indicator's four phases and the pure transitions between them. The I/O shell
/// (``NetworkActivityIndicatorManager``) feeds it events and carries out the effects it returns.
///
/// - A request starting while idle shows the indicator at once (AFNetworking 2.0), or — with an
///   activation delay (AFNetworking 3's 1.0 s) — arms that delay; if every request finishes before
///   it elapses, the indicator never appears.
/// - When the last request finishes, the indicator stays on for the completion delay; a request
///   starting meanwhile keeps it on without a flicker.
struct ActivityIndicatorStateMachine: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        case notActive
        case delayingStart
        case active
        case delayingEnd
    }

    /// What the shell must do after a transition.
    enum Effect: Sendable, Equatable {
        /// Call ``timerFired(generation:)`` with `generation` after `delay` seconds.
        case scheduleTimer(after: TimeInterval, generation: UInt64)
        /// Show (`true`) or hide (`false`) the indicator.
        case setVisible(Bool)
    }

    private(set) var phase = Phase.notActive
    private(set) var activityCount = 0
    private(set) var isEnabled = false
    /// Identifies the one timer that may still act; older timers are ignored when they fire.
    private(set) var timerGeneration: UInt64 = 0
    /// Seconds between the first request starting and the indicator showing. Default 0: at once.
    var activationDelay: TimeInterval = 0
    /// Seconds the indicator stays on after the last request finished. Default 0.17.
    var completionDelay: TimeInterval = 0.17

    /// The indicator is on while active and while waiting to turn off.
    var isIndicatorVisible: Bool { phase == .active || phase == .delayingEnd }

    mutating func incrementActivityCount() -> [Effect] {
        activityCount += 1
        return reconcile()
    }

    /// Never goes below zero.
    mutating func decrementActivityCount() -> [Effect] {
        activityCount = max(0, activityCount - 1)
        return reconcile()
    }

    /// Disabling hides the indicator at once; enabling with requests running arms the activation delay.
    mutating func setEnabled(_ enabled: Bool) -> [Effect] {
        isEnabled = enabled
        return reconcile()
    }

    mutating func timerFired(generation: UInt64) -> [Effect] {
        guard generation == timerGeneration else { return [] }
        switch phase {
        case .delayingStart:
            phase = .active
            return [.setVisible(true)]
        case .delayingEnd:
            phase = .notActive
            return [.setVisible(false)]
        case .notActive, .active:
            return []
        }
    }

    /// Moves to the phase the count and the enabled flag call for.
    private mutating func reconcile() -> [Effect] {
        let busy = activityCount > 0
        guard isEnabled else {
            let wasVisible = isIndicatorVisible
            move(to: .notActive)
            return wasVisible ? [.setVisible(false)] : []
        }
        switch (phase, busy) {
        case (.notActive, true):
            guard activationDelay > 0 else {
                move(to: .active)
                return [.setVisible(true)]
            }
            move(to: .delayingStart)
            return [.scheduleTimer(after: activationDelay, generation: timerGeneration)]
        case (.delayingStart, false):
            move(to: .notActive)
        case (.active, false):
            move(to: .delayingEnd)
            return [.scheduleTimer(after: completionDelay, generation: timerGeneration)]
        case (.delayingEnd, true):
            move(to: .active)
        default:
            break
        }
        return []
    }

    /// Every phase change invalidates the pending timer.
    private mutating func move(to next: Phase) {
        guard next != phase else { return }
        phase = next
        timerGeneration &+= 1
    }
}
