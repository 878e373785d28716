import Courier
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #21, item 6: many mixed requests in one process (``SoakWorkload``), with the open descriptors, the resident
/// size and the live TCP connections sampled every second; after the warm-up none of them may keep growing
/// (``SoakVerdict``), and every request must end as its kind requires.
///
/// `COURIER_SOAK_SECONDS` sets the length (default 60, CI's short run; `scripts/soak` runs 600), `COURIER_SOAK_CSV`
/// where the samples are written (default a temporary file, printed); `COURIER_SOAK_ONLY` (a kind's raw value, e.g.
/// `cancel`) sends that kind alone. Swift Testing keeps a backtrace of every error thrown in the process, which grows
/// with the cancels and timeouts: `scripts/soak` turns that off (`SWT_SWIFT_ERROR_BACKTRACING_ENABLED=0`) for its
/// long run; within the main suite's minute it stays inside the allowance.
@Suite(
    "Hardening: a soak of mixed requests",
    .serialized,
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct SoakTests {
    static let concurrency = 8

    @Test(.timeLimit(.minutes(60)))
    func mixedRequestsDoNotDrift() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["COURIER_SOAK_SECONDS"].flatMap(Double.init) ?? 60
        let csv = environment["COURIER_SOAK_CSV"].map { URL(fileURLWithPath: $0) } ?? Fixtures.temporaryFile("soak-\(UUID().uuidString).csv")
        // One kind alone (its raw value), to find which one makes a measure grow.
        let only = environment["COURIER_SOAK_ONLY"].flatMap(SoakWorkload.Kind.init(rawValue:))
        let workload = try await Self.workload()
        defer {
            for manager in [workload.http2, workload.http1, workload.plain] { manager.invalidateSessionCancelingTasks(true) }
            try? FileManager.default.removeItem(at: workload.folder)
        }

        let tally = SoakTally()
        let started = ContinuousClock.now
        let sampler = SoakSampler(started: started) { tally.finished }
        let end = started + .seconds(seconds)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask {
                    var random = SystemRandomNumberGenerator()
                    while ContinuousClock.now < end {
                        let kind = only ?? SoakWorkload.Kind.pick(using: &random)
                        tally.record(kind, problem: await workload.run(kind, random: &random))
                    }
                }
            }
        }
        let samples = sampler.stop()
        try Data((([ProcessSample.csvHeader] + samples.map(\.csvLine)).joined(separator: "\n") + "\n").utf8).write(to: csv)

        let total = tally.finished
        let elapsed = SoakWorkload.seconds(ContinuousClock.now - started)
        let verdict = SoakVerdict(samples: samples, warmUp: max(10, seconds / 5))
        let byKind = tally.counts
        print("soak: \(total) requests in \(String(format: "%.0f", elapsed)) s (\(String(format: "%.0f", Double(total) / elapsed))/s), "
              + SoakWorkload.Kind.allCases.map { "\($0.rawValue) \(byKind[$0, default: 0])" }.joined(separator: ", "))
        for (label, sample) in [("after warm-up", verdict.early), ("at the end", verdict.late)] {
            if let sample {
                print("soak: \(label) (\(String(format: "%.0f", sample.elapsed)) s): \(sample.descriptors) fds, \(sample.residentKiB / 1024) MiB RSS, \(sample.connections) TCP connections")
            }
        }
        print("soak: samples in \(csv.path)")

        let (count, first) = tally.problems
        #expect(count == 0, "\(count) requests did not end as they must: \(first)")
        #expect(verdict.growths.isEmpty, "\(verdict.growths)")
        for kind in SoakWorkload.Kind.allCases where only == nil || only == kind {
            #expect(byKind[kind, default: 0] > 0, "no \(kind.rawValue) ran")
        }
    }

    /// Sessions for nginx (HTTP/2 and HTTP/1.1 only, its CA trusted) and for plain HTTP, and the files nginx serves.
    static func workload() async throws -> SoakWorkload {
        let small = try NginxInterop.servedFile("soak/small.txt")
        try FileManager.default.createDirectory(at: small.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: UInt8(ascii: "s"), count: SoakWorkload.smallSize).write(to: small)
        try Data((0..<SoakWorkload.largeSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: try NginxInterop.servedFile("soak/large.bin"))

        // No cache: every request goes to its server (nginx's files would be answered from it).
        var http2 = SessionConfiguration.ephemeral
        http2.securityPolicy = try NginxInterop.policy()
        http2.urlCache = nil
        var http1 = SessionConfiguration.ephemeral
        http1.transport = try NginxInterop.transport { $0.httpVersion = .http1Only }
        http1.urlCache = nil
        var plain = SessionConfiguration.ephemeral
        plain.transport = Fixtures.transport
        plain.urlCache = nil
        return SoakWorkload(
            http2: URLSessionManager(configuration: http2), http1: URLSessionManager(configuration: http1), plain: URLSessionManager(configuration: plain),
            small: try NginxInterop.url("soak/small.txt"), large: try NginxInterop.url("soak/large.bin"),
            plainSmall: try await Fixtures.url("/bytes/512"), upload: try #require(URL(string: try CLIPipeTests.url("/post"))),
            throttled: try await Fixtures.url("/download/1048576?rate=2097152"), delayed: try await Fixtures.url("/delay/1"),
            folder: try Fixtures.temporaryDirectory("soak")
        )
    }
}

/// What the soak's requests came to: how many of each kind, and those that did not end as they must.
final class SoakTally: Sendable {
    private let state = Mutex<(counts: [SoakWorkload.Kind: Int], finished: Int, problems: Int, first: [String])>(([:], 0, 0, []))

    func record(_ kind: SoakWorkload.Kind, problem: String?) {
        state.withLock { state in
            state.counts[kind, default: 0] += 1
            state.finished += 1
            if let problem {
                state.problems += 1
                if state.first.count < 10 { state.first.append(problem) }
            }
        }
    }

    var finished: Int { state.withLock { $0.finished } }
    var counts: [SoakWorkload.Kind: Int] { state.withLock { $0.counts } }
    /// How many did not end as they must, and the first ten of them.
    var problems: (Int, [String]) { state.withLock { ($0.problems, $0.first) } }
}

/// Samples the process once a second on a thread of its own (not the cooperative pool the requests keep busy).
final class SoakSampler: Sendable {
    private let samples = Mutex<[ProcessSample]>([])
    private let running = Atomic<Bool>(true)
    private let started: ContinuousClock.Instant
    private let requests: @Sendable () -> Int

    init(started: ContinuousClock.Instant, requests: @escaping @Sendable () -> Int) {
        self.started = started
        self.requests = requests
        Thread.detachNewThread { [self] in
            var next = started
            while running.load(ordering: .relaxed) {
                let sample = ProcessSample.now(elapsed: SoakWorkload.seconds(ContinuousClock.now - started), requests: requests())
                samples.withLock { $0.append(sample) }
                next += .seconds(1)
                let wait = next - ContinuousClock.now
                if wait > .zero { usleep(UInt32(SoakWorkload.seconds(wait) * 1_000_000)) }
            }
        }
    }

    /// Stops sampling, takes a last sample and returns them all.
    func stop() -> [ProcessSample] {
        running.store(false, ordering: .relaxed)
        let last = ProcessSample.now(elapsed: SoakWorkload.seconds(ContinuousClock.now - started), requests: requests())
        return samples.withLock { $0 + [last] }
    }
}

struct SoakVerdictTests {
    static func samples(seconds: Int, _ shape: (Int) -> (fds: Int, kib: Int, connections: Int)) -> [ProcessSample] {
        (0...seconds).map { second in
            let value = shape(second)
            return ProcessSample(elapsed: Double(second), requests: second * 100, descriptors: value.fds, residentKiB: value.kib, connections: value.connections)
        }
    }

    @Test func aSteadyProcessWithSpikesPasses() {
        let samples = Self.samples(seconds: 60) { second in
            (fds: 40 + second % 3 + (second == 55 ? 30 : 0), kib: 80_000 + (second * 7919) % 4000, connections: 10 + second % 4)
        }
        let verdict = SoakVerdict(samples: samples, warmUp: 12)
        #expect(verdict.growths.isEmpty, "\(verdict.growths)")
        #expect(verdict.early?.elapsed == 12 && verdict.late?.elapsed == 60)
    }

    @Test func aWarmUpThatGrowsIsNotALeak() {
        let samples = Self.samples(seconds: 60) { second in (fds: min(second, 10) * 5, kib: min(second, 10) * 10_000, connections: min(second, 10)) }
        #expect(SoakVerdict(samples: samples, warmUp: 12).growths.isEmpty)
    }

    @Test func aDescriptorOrConnectionLeakFails() {
        let leaking = Self.samples(seconds: 60) { second in (fds: 40 + second / 2, kib: 80_000, connections: 10) }
        #expect(SoakVerdict(samples: leaking, warmUp: 12).growths.map(\.measure) == ["open descriptors"])
        let connections = Self.samples(seconds: 60) { second in (fds: 40, kib: 80_000, connections: 10 + second / 3) }
        #expect(SoakVerdict(samples: connections, warmUp: 12).growths.map(\.measure) == ["TCP connections"])
    }

    @Test func aGrowingResidentSizeFails() {
        // 1 MiB a second: 38 MiB between the windows, more than the 16 MiB allowed.
        let samples = Self.samples(seconds: 60) { second in (fds: 40, kib: 80_000 + second * 1024, connections: 10) }
        #expect(SoakVerdict(samples: samples, warmUp: 12).growths.map(\.measure) == ["resident KiB"])
    }

    @Test func tooFewSamplesFail() {
        #expect(!SoakVerdict(samples: Self.samples(seconds: 12) { _ in (40, 80_000, 10) }, warmUp: 12).growths.isEmpty)
    }
}
