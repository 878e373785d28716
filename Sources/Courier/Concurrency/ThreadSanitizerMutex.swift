#if COURIER_TSAN_LOCKS && canImport(Glibc)
import Glibc

/// The `Mutex` of ThreadSanitizer builds only (`COURIER_SANITIZE=thread` or `COURIER_TSAN_LOCKS=1`, as `.ci/run`'s
/// sanitizer step builds): a pthread mutex with `Synchronization.Mutex`'s `withLock` and `withLockIfAvailable`, which
/// it shadows in this module (Courier, and CourierTesting through a link to this file).
///
/// Hand-written because ThreadSanitizer cannot see `Synchronization.Mutex` on Linux (Swift 6.3.1): it waits on a
/// futex that TSan does not intercept, so every access made under it is reported as a race (a two-thread counter
/// under a `Mutex` is enough). TSan intercepts pthread mutexes, so under this lock it checks Courier's locking
/// itself. Release builds never compile it. `@unchecked Sendable` is this type's whole purpose: the value is only
/// touched with the pthread mutex held.
final class Mutex<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(_ initialValue: sending Value) {
        value = initialValue
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }

    /// `withLock` when the lock is free now (`pthread_mutex_trylock`); `nil` without waiting when it is held.
    func withLockIfAvailable<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(lock) == 0 else { return nil }
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#endif
