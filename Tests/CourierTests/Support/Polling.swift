import Foundation

/// Waits (polling every 2 ms, bounded by `timeout`) until `condition` holds; returns whether it did. For what happens
/// on another thread or queue with nothing to await: a test asserts on the result instead of sleeping a fixed time.
@discardableResult
func eventually(timeout: Duration = .seconds(10), until condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
