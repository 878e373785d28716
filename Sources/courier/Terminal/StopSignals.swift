import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Catches SIGINT (Ctrl-C) and SIGTERM for a command that wants to stop cleanly (for instance to
/// save resume data) instead of dying at once.
///
/// The first signal calls `onStop` on a private queue; a second one exits immediately with the
/// shell's code for that signal (``exitCode(for:)``). Each signal is set to `SIG_IGN` before its
/// `DispatchSource` is made, so the default action never kills the process; ``restore()`` puts the
/// default actions back.
final class StopSignals: Sendable {
    /// The first signal received; later ones find it set.
    private final class FirstSignal: Sendable {
        let number = Mutex<Int32?>(nil)
    }

    private let first: FirstSignal
    private let sources: Mutex<[any DispatchSourceSignal]>

    /// Installs the sources; `onStop` gets the first signal's number (SIGINT or SIGTERM).
    init(onStop: @escaping @Sendable (Int32) -> Void) {
        let first = FirstSignal()
        let queue = DispatchQueue(label: "courier.stop-signals")
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let isFirst = first.number.withLock { received in
                    guard received == nil else { return false }
                    received = number
                    return true
                }
                if isFirst {
                    onStop(number)
                } else {
                    Foundation.exit(StopSignals.exitCode(for: number))
                }
            }
            source.resume()
            return source
        }
        self.first = first
        self.sources = Mutex(sources)
    }

    /// The first stop signal received, if any.
    var received: Int32? { first.number.withLock { $0 } }

    /// The shell's exit code for a process ended by `signal`: 128 + the signal number (130 for
    /// SIGINT, 143 for SIGTERM).
    static func exitCode(for signal: Int32) -> Int32 { 128 + signal }

    /// Cancels the sources and restores the default actions.
    func restore() {
        let cancelled = sources.withLock { sources -> Bool in
            guard !sources.isEmpty else { return false }
            for source in sources { source.cancel() }
            sources = []
            return true
        }
        if cancelled {
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
    }
}
