import Dispatch
import Foundation

/// Runs an action after a delay. The activity indicator's timers go through it so tests can
/// drive them with a manual clock.
protocol ActivityScheduler: Sendable {
    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void)
}

/// The default scheduler: the main queue.
struct MainQueueActivityScheduler: ActivityScheduler {
    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        DispatchQueue.main.asyncAfter(deadline: .now() + delay, execute: action)
    }
}
