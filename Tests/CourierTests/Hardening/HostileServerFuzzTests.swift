@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #21, item 4: a server that answers every request with generated faults (odd status lines, conflicting
/// lengths, lying `Content-Range` and `416` totals, redirects to odd URLs, 1xx floods, garbage `Set-Cookie` and
/// `WWW-Authenticate`, bodies that stop or stall), driven through sessions, operations, download tasks with their
/// resume data and `courier download --continue`. The process must never trap, nothing delivered as a success may
/// differ from the resource's bytes, and neither the credential nor a `--session`'s header field may reach another
/// origin.
///
/// `COURIER_HOSTILE_RESPONSES` sets how many responses a run answers (default 10,000, about 40 s; `scripts/hostile-fuzz`
/// runs 100,000) and `COURIER_HOSTILE_SEED` the seed (default: random, printed, so a failure can be run again).
@Suite("Hardening: a generated hostile server", .serialized)
struct HostileServerFuzzTests {
    static var responseTarget: Int {
        ProcessInfo.processInfo.environment["COURIER_HOSTILE_RESPONSES"].flatMap(Int.init) ?? 10_000
    }

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["COURIER_HOSTILE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
    }

    /// A driver on a fresh session, with `courier` when it has been built.
    static func driver(_ server: FaultServer) throws -> FaultDriver {
        FaultDriver(
            server: server, session: SessionFixtures.manager(), folder: try Fixtures.temporaryDirectory("hostile"),
            courier: try ChildProcess.executable("courier")
        )
    }

    @Test(.timeLimit(.minutes(60)))
    func generatedFaultsNeverFoolCourier() async throws {
        let server = try await FaultServer.start()
        let driver = try Self.driver(server)
        defer {
            driver.session.invalidateSessionCancelingTasks(true)
            try? FileManager.default.removeItem(at: driver.folder)
        }
        let seed = Self.seed
        let target = Self.responseTarget
        print("hostile-server fuzz: seed \(seed), \(target) responses (COURIER_HOSTILE_SEED=\(seed) runs it again)")
        var generator = FaultGenerator(seed: seed, port: server.port)
        var outcomes: [String: Int] = [:]
        var cases = 0
        var slowest: [(Duration, String)] = []
        let started = ContinuousClock.now
        while server.responses < target {
            let generated = generator.next(commandLineEvery: 40)
            server.register(generated)
            let caseStarted = ContinuousClock.now
            let result = await driver.run(generated)
            slowest = Array((slowest + [(ContinuousClock.now - caseStarted, "\(generated)")]).sorted { $0.0 > $1.0 }.prefix(5))
            server.forget(generated)
            cases += 1
            switch result {
            case .success(let outcome):
                outcomes["\(generated.client.rawValue) \(outcome.rawValue)", default: 0] += 1
            case .failure(let problem):
                Issue.record("\(generated): \(problem)")
            }
        }
        let leaks = server.leaks
        #expect(leaks.isEmpty, "\(leaks.prefix(10))")
        if outcomes.keys.contains(where: { $0.hasPrefix("commandLine") }) {
            #expect(server.apiKeysAtOrigin > 0, "courier download never sent the session's field to its own origin")
        }
        let elapsed = ContinuousClock.now - started
        print("hostile-server fuzz: \(cases) cases, \(server.responses) responses in \(elapsed); " +
              outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("hostile-server fuzz: slowest cases: " + slowest.map { "\($0.1.prefix(160)) in \($0.0)" }.joined(separator: "; "))
        // Every façade met the server, and each of them delivered some resources whole and failed on others.
        for client in [GeneratedCase.Client.session, .operation, .download] {
            #expect(outcomes["\(client.rawValue) delivered", default: 0] > 0, "\(client) never delivered: \(outcomes)")
            #expect(outcomes["\(client.rawValue) failed", default: 0] > 0, "\(client) never failed: \(outcomes)")
        }
    }

    /// Cases the generator makes, kept as they are, with what Courier must make of them: the faults that once fooled
    /// it, and one of each kind that every façade must meet on every run. (`PORT` and `N` in a redirect are the
    /// server's port and the case's number.) The downloads cut at 700 bytes are all continued or started over: a
    /// `206` that does not fit the kept bytes once failed them with "I/O on closed channel" (the restart was handed
    /// the pooled connection the server had just closed).
    static let regressions: [(GeneratedCase.Client, [GeneratedFault], Int, FaultDriver.Outcome)] = [
        (.download, [.truncated(at: 700, chunked: false), .range(.unsatisfiable(total: 700))], 2_000, .resumed),
        (.download, [.truncated(at: 700, chunked: false), .range(.wrongTotal(delta: -300))], 2_000, .resumed),
        (.download, [.truncated(at: 700, chunked: true), .range(.wrongStart(delta: -100))], 2_000, .resumed),
        (.download, [.truncated(at: 700, chunked: false), .range(.wrongContentLength(delta: -1))], 2_000, .resumed),
        (.download, [.truncated(at: 700, chunked: false), .range(.changedEntityTag)], 2_000, .resumed),
        (.download, [.truncated(at: 700, chunked: false), .range(.noContentRange)], 2_000, .resumed),
        (.download, [.truncated(at: 700, chunked: false), .range(.truncated(at: 10)), .range(.honest)], 2_000, .failed),
        (.commandLine, [.truncated(at: 700, chunked: false), .range(.unsatisfiable(total: 700))], 2_000, .resumed),
        (.commandLine, [.truncated(at: 700, chunked: false), .range(.wrongStart(delta: 50))], 2_000, .resumed),
        (.commandLine, [.redirect(location: "http://localhost:PORT/fuzz/N"), .honest(chunked: false)], 5_000, .delivered),
        (.commandLine, [.redirect(location: "http://localhost:PORT/fuzz/N"), .truncated(at: 700, chunked: false), .range(.honest)], 2_000, .resumed),
        (.session, [.conflictingLengths], 5_000, .failed),
        (.session, [.lengthBesideChunked], 5_000, .failed),
        (.operation, [.badChunkSize("ffffffffffffffffff")], 5_000, .failed),
        (.session, [.interim(count: 300, code: 103)], 5_000, .delivered),
        (.session, [.redirect(location: "http://localhost:PORT/fuzz/N"), .honest(chunked: false)], 5_000, .delivered),
        (.operation, [.redirect(location: "http://[::ffff:127.0.0.1]:PORT/fuzz/N"), .honest(chunked: false)], 5_000, .delivered),
        (.session, [.redirect(location: "http://127.0.0.1:99999/fuzz/N")], 5_000, .failed),
        (.session, [.oddStatusLine("2000 OK")], 5_000, .failed),
        (.operation, [.challenge("Digest nonce=\"\u{1B}[31m, realm=\"")], 5_000, .failed),
        (.download, [.garbageFields(["a=b; Domain=com; Max-Age=99999999999999999999", "Basic realm=\"\\"])], 5_000, .delivered),
    ]

    @Test(arguments: regressions.indices)
    func regression(_ index: Int) async throws {
        let server = try await FaultServer.start()
        let driver = try Self.driver(server)
        defer {
            driver.session.invalidateSessionCancelingTasks(true)
            try? FileManager.default.removeItem(at: driver.folder)
        }
        let (client, faults, length, expected) = Self.regressions[index]
        let number = 1_000 + index
        let concrete = faults.map { fault -> GeneratedFault in
            guard case .redirect(let location) = fault else { return fault }
            return .redirect(location: location.replacingOccurrences(of: "PORT", with: "\(server.port)")
                .replacingOccurrences(of: "/N", with: "/\(number)"))
        }
        let generated = GeneratedCase(
            number: number, runSeed: 0, resource: FaultResource(seed: UInt64(number), length: length), client: client,
            faults: concrete, timeout: 10
        )
        server.register(generated)
        let result = await driver.run(generated)
        switch result {
        case .success(let outcome): #expect(outcome == expected, "\(generated)")
        case .failure(let problem): Issue.record("\(generated): \(problem)")
        }
        #expect(server.leaks.isEmpty, "\(server.leaks)")
        if client == .commandLine {
            #expect(server.apiKeysAtOrigin > 0, "courier download did not send the session's field to its own origin")
        }
    }
}
