import Foundation
import Synchronization

/// The hostile server of the fuzzer: a ``HostileServer`` that answers `/fuzz/<case>` with the case's faults in the
/// order its requests arrive, and records every request that carried the case's credential to another origin.
final class FaultServer: Sendable {
    /// The credential every case sends (as `Authorization`), meant for 127.0.0.1:``port`` only.
    static let authorization = "Basic " + Data("ann:fuzz-secret".utf8).base64EncodedString()
    /// The API key `courier download` sends from a `--session` made for 127.0.0.1:``port`` (as `X-Api-Key`): a
    /// session's header fields stay with the session's origin, as its credential does.
    static let apiKey = "fuzz-session-api-key"

    private let server: HostileServer
    private let registry: Registry

    /// The port on 127.0.0.1.
    var port: Int { server.port }

    /// Requests that carried ``authorization`` or ``apiKey`` to another origin (after a redirect), described.
    var leaks: [String] { registry.state.withLock { $0.leaks } }

    /// Requests that carried ``apiKey`` to the session's own origin: the field is sent where it belongs (so that its
    /// absence elsewhere means something).
    var apiKeysAtOrigin: Int { registry.state.withLock { $0.apiKeysAtOrigin } }

    /// Responses answered so far.
    var responses: Int { registry.state.withLock { $0.responses } }

    private init(server: HostileServer, registry: Registry) {
        self.server = server
        self.registry = registry
    }

    /// Starts the server on an ephemeral port.
    static func start() async throws -> FaultServer {
        let registry = Registry()
        let server = try await HostileServer.start { request, connection in
            try await registry.answer(request, connection)
        }
        registry.state.withLock { $0.origin = "127.0.0.1:\(server.port)" }
        return FaultServer(server: server, registry: registry)
    }

    /// The URL of `generated`'s resource.
    func url(_ generated: GeneratedCase) -> URL { server.url(generated.path) }

    /// Serves `generated` from now on.
    func register(_ generated: GeneratedCase) {
        registry.state.withLock { $0.cases[generated.number] = generated }
    }

    /// Stops serving `generated` (its later requests get a 404 and the connection closes).
    func forget(_ generated: GeneratedCase) {
        registry.state.withLock {
            $0.cases[generated.number] = nil
            $0.requestCounts[generated.number] = nil
        }
    }

    /// The requests `generated` has made so far.
    func requestCount(_ generated: GeneratedCase) -> Int {
        registry.state.withLock { $0.requestCounts[generated.number] ?? 0 }
    }

    func stop() async { await server.stop() }

    /// The cases being served and what they have been sent, shared with the connection tasks.
    private final class Registry: Sendable {
        struct State {
            var origin = ""
            var cases: [Int: GeneratedCase] = [:]
            var requestCounts: [Int: Int] = [:]
            var leaks: [String] = []
            var apiKeysAtOrigin = 0
            var responses = 0
        }

        let state = Mutex(State())

        func answer(_ request: HostileServer.Request, _ connection: HostileServer.Connection) async throws -> HostileServer.Disposition {
            let number = Self.caseNumber(in: request.target)
            let planned: (GeneratedCase, GeneratedFault)? = state.withLock { state in
                state.responses += 1
                let host = request.header("Host") ?? ""
                if host != state.origin, request.header("Authorization") == FaultServer.authorization {
                    state.leaks.append("Authorization sent to \(host) for \(request.target.prefix(100))")
                }
                if request.header("X-Api-Key") == FaultServer.apiKey {
                    if host == state.origin {
                        state.apiKeysAtOrigin += 1
                    } else {
                        state.leaks.append("the session's X-Api-Key sent to \(host) for \(request.target.prefix(100))")
                    }
                }
                guard let number, let generated = state.cases[number] else { return nil }
                let index = state.requestCounts[number, default: 0]
                state.requestCounts[number] = index + 1
                return (generated, generated.fault(forRequest: index))
            }
            guard let (generated, fault) = planned else {
                try await connection.writeHead("404 Not Found", [("Content-Length", "0"), ("Connection", "close")])
                return .close
            }
            let range = request.header("Range").flatMap(Self.rangeStart(of:))
            return try await FaultResponse(resource: generated.resource, connection: connection)
                .write(fault, rangeStart: range)
        }

        /// The case number after the last `/fuzz/` of a request target (redirects may add to the path around it).
        static func caseNumber(in target: String) -> Int? {
            guard let marker = target.range(of: "/fuzz/", options: .backwards) else { return nil }
            return Int(target[marker.upperBound...].prefix { $0.isASCII && $0.isNumber })
        }

        /// `k` of `bytes=k-`.
        static func rangeStart(of value: String) -> Int? {
            guard value.hasPrefix("bytes="), value.hasSuffix("-") else { return nil }
            return Int(value.dropFirst(6).dropLast())
        }
    }
}
