#if os(Linux) && Reachability  // the Reachability trait (a default one; see Package.swift)
import Foundation
import Glibc
import Synchronization

/// Runs a piece of work inside another network namespace (a `/run/netns/<name>` file), on a
/// short-lived thread of its own so the rest of the process is untouched. Sockets created there
/// stay in that namespace. Internal: tests use it to watch namespaces they create.
enum NetworkNamespace {
    private static let cloneNewNet: Int32 = 0x4000_0000
    private typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32

    /// `setns(2)`, which Swift's Glibc module does not export, looked up in the C library.
    private static func setNamespace(_ descriptor: Int32) -> Int32 {
        guard let library = dlopen(nil, RTLD_NOW), let symbol = dlsym(library, "setns") else { return -1 }
        return unsafeBitCast(symbol, to: SetNamespace.self)(descriptor, cloneNewNet)
    }

    /// Runs `body` on a new thread that first joins the namespace at `path`.
    static func run<T: Sendable>(in path: String, _ body: @escaping @Sendable () throws(NetlinkSocketError) -> T) throws(NetlinkSocketError) -> T {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(errno) }
        defer { _ = close(descriptor) }
        let outcome = Mutex<Result<T, NetlinkSocketError>>(.failure(.system(EINTR)))
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result: Result<T, NetlinkSocketError>
            if setNamespace(descriptor) != 0 {
                result = .failure(.system(errno))
            } else {
                do throws(NetlinkSocketError) { result = .success(try body()) } catch { result = .failure(error) }
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
        finished.wait()
        return try outcome.withLock { $0 }.get()
    }
}
#endif
