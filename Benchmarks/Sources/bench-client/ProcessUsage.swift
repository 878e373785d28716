import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's CPU time and peak resident size, from `getrusage(RUSAGE_SELF)`.
struct ProcessUsage {
    /// User plus system CPU time, in microseconds.
    let cpuMicroseconds: Int64
    /// Peak resident set size, in bytes.
    let peakResidentBytes: Int64

    static func now() -> ProcessUsage {
        var usage = rusage()
        #if canImport(Glibc)
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        _ = getrusage(RUSAGE_SELF, &usage)
        #endif
        let user = Int64(usage.ru_utime.tv_sec) * 1_000_000 + Int64(usage.ru_utime.tv_usec)
        let system = Int64(usage.ru_stime.tv_sec) * 1_000_000 + Int64(usage.ru_stime.tv_usec)
        #if canImport(Darwin)
        let peak = Int64(usage.ru_maxrss)
        #else
        let peak = Int64(usage.ru_maxrss) * 1024
        #endif
        return ProcessUsage(cpuMicroseconds: user + system, peakResidentBytes: peak)
    }
}
