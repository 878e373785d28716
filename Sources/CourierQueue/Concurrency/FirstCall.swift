import Synchronization

/// Tells the first of any number of calls, from any thread, that it is the first: what makes a store's `close()`
/// close its connections once however often it is called.
package final class FirstCall: Sendable {
    private let called = Mutex(false)

    package init() {}

    /// `true` for the first call only.
    package func isFirst() -> Bool {
        called.withLock { called in
            defer { called = true }
            return !called
        }
    }
}
