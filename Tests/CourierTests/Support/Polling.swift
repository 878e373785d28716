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

/// Waits (polling every `interval`, bounded by `timeout`) until `condition` holds; returns whether it did. The form for
/// a condition that must itself wait: a database query, a subprocess, a store's actor. An error the condition throws
/// ends the wait and is thrown.
@discardableResult
func eventually(
    timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(20), until condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Samples `value` every `interval` from now until the returned task is cancelled; the task's value is the largest
/// sample (or 0). For a limit that must hold while work runs (operations or downloads at once, jobs running, a child's
/// memory): cancel it when the work is done, then await it.
func sampleMaximum(every interval: Duration = .milliseconds(2), _ value: @escaping @Sendable () async -> Int) -> Task<Int, Never> {
    Task {
        var most = 0
        while !Task.isCancelled {
            most = max(most, await value())
            try? await Task.sleep(for: interval)
        }
        return most
    }
}

/// Checks `condition` every 2 ms for `window` and returns `false` at its first failure. For what must *not* happen
/// (no bytes while paused, no indicator for a short request, no update while stopped): an absence has no event to
/// await, so the window is part of the claim ("nothing for 2 s") and is written at the call. Unlike a sleep followed
/// by one look, a breach in the middle of the window is caught, and the check ends there.
func throughout(_ window: Duration, _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + window
    while clock.now < end {
        if !condition() { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// Waits (bounded by `timeout`) until the file at `url` holds more than `bytes`: a transfer under way has written to
/// disk. Returns whether it did.
@discardableResult
func fileGrows(_ url: URL, beyond bytes: Int64, timeout: Duration = .seconds(30)) async -> Bool {
    await eventually(timeout: timeout) {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        return (size ?? -1) > bytes
    }
}
