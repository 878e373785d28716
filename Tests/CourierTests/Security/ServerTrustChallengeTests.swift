import Courier
import CourierTestServer
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-trust challenges against nginx, over HTTP/2 and HTTP/1.1: the session's and the task's challenge blocks
/// and an operation's challenge block see each new connection's certificates with the policy's verdict, during the
/// handshake, and may accept a server the policy refuses, refuse one it trusts, or apply its verdict.
@Suite("Server-trust challenges against nginx", .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() })
struct ServerTrustChallengeTests {
    /// A policy trusting nginx's root; with `strangerPin`, also pinned on an unrelated leaf, so the handshake succeeds
    /// and the policy's verdict is a rejection.
    static func policy(strangerPin: Bool) throws -> SecurityPolicy {
        let root = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        let policy: SecurityPolicy
        if strangerPin {
            let stranger = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: ["127.0.0.1"], issuer: nil)
            policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [stranger.derBytes])
        } else {
            policy = .default
        }
        policy.trustedRootCertificates = root
        return policy
    }

    static func session(_ policy: SecurityPolicy, http2: Bool, connectTimeout: TimeInterval = 10) -> URLSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = policy
        configuration.httpVersion = http2 ? .automatic : .http1Only
        configuration.connectTimeout = connectTimeout
        configuration.urlCache = nil
        let manager = URLSessionManager(configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        return manager
    }

    static func expectedProtocol(http2: Bool) -> String { http2 ? "HTTP/2.0" : "HTTP/1.1" }

    @Test(arguments: [true, false])
    func sessionBlockAcceptsAServerThePolicyRefuses(http2: Bool) async throws {
        let session = Self.session(try Self.policy(strangerPin: true), http2: http2)
        defer { session.invalidateSessionCancelingTasks(true) }
        let seen = Mutex<[AuthenticationChallenge]>([])
        session.setSessionDidReceiveAuthenticationChallengeBlock { _, challenge in
            seen.withLock { $0.append(challenge) }
            return challenge.serverTrust == nil ? .performDefaultHandling : .acceptServerTrust
        }
        let probe = NginxInterop.probe()
        let (data, response) = try await session.data(for: try NginxInterop.request("hello.txt", probe: probe))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "Hello from nginx\n")
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.protocolVersion == Self.expectedProtocol(http2: http2))

        let challenge = try #require(seen.withLock { $0 }.first)
        let trust = try #require(challenge.serverTrust)
        #expect(challenge.protectionSpace.authenticationMethod == AuthenticationChallenge.serverTrustMethod)
        #expect(trust.host == "127.0.0.1")
        #expect(trust.port == NginxServer.url?.port)
        #expect(trust.certificateChain == [try NginxServer.certificates(at: NginxServer.leafPath).first])
        #expect(trust.evaluation.failureReason?.contains("pinned") == true, "\(trust.evaluation)")
        #expect(challenge.failureResponse == nil)
    }

    @Test(arguments: [true, false])
    func taskBlockRefusesAServerThePolicyTrustsBeforeAnyRequest(http2: Bool) async throws {
        let session = Self.session(try Self.policy(strangerPin: false), http2: http2)
        defer { session.invalidateSessionCancelingTasks(true) }
        let verdicts = Mutex<[ServerTrustEvaluation]>([])
        session.setTaskDidReceiveAuthenticationChallengeBlock { _, _, challenge in
            guard let trust = challenge.serverTrust else { return .performDefaultHandling }
            verdicts.withLock { $0.append(trust.evaluation) }
            return .rejectProtectionSpace
        }
        let probe = NginxInterop.probe()
        await #expect {
            _ = try await session.data(for: try NginxInterop.request("hello.txt", probe: probe))
        } throws: { error in
            guard let error = error as? URLError else { return false }
            return error.code == .serverCertificateUntrusted && error.localizedDescription.contains("rejection")
        }
        #expect(verdicts.withLock { $0 } == [.trusted])
        try await Self.expectNotLogged(probe)
    }

    @Test func defaultHandlingAppliesThePolicysVerdict() async throws {
        for strangerPin in [false, true] {
            let session = Self.session(try Self.policy(strangerPin: strangerPin), http2: true)
            defer { session.invalidateSessionCancelingTasks(true) }
            let asked = Atomic<Int>(0)
            session.setSessionDidReceiveAuthenticationChallengeBlock { _, _ in
                asked.add(1, ordering: .relaxed)
                return .performDefaultHandling
            }
            let outcome: Result<Int, any Error>
            do {
                outcome = .success(try await session.data(for: try NginxInterop.request("hello.txt")).1.statusCode)
            } catch {
                outcome = .failure(error)
            }
            #expect(asked.load(ordering: .relaxed) == 1)
            if strangerPin {
                #expect((try? outcome.get()) == nil, "the policy refuses")
            } else {
                #expect((try? outcome.get()) == 200)
            }
        }
    }

    /// A block written for 401s answers with a password: that must not make a refused certificate trusted.
    @Test func aCredentialIsNoVerdictOnACertificate() async throws {
        let session = Self.session(try Self.policy(strangerPin: true), http2: true)
        defer { session.invalidateSessionCancelingTasks(true) }
        session.setSessionDidReceiveAuthenticationChallengeBlock { _, _ in
            .useCredential(URLCredential(user: "user", password: "password", persistence: .none))
        }
        await #expect {
            _ = try await session.data(for: try NginxInterop.request("hello.txt"))
        } throws: { error in
            (error as? URLError)?.code == .serverCertificateUntrusted
        }
    }

    @Test func anAnswerSlowerThanTheConnectTimeoutFailsTheConnection() async throws {
        let session = Self.session(try Self.policy(strangerPin: false), http2: true, connectTimeout: 0.5)
        defer { session.invalidateSessionCancelingTasks(true) }
        session.setSessionDidReceiveAuthenticationChallengeBlock { _, challenge in
            if challenge.serverTrust != nil { Thread.sleep(forTimeInterval: 2) }
            return .acceptServerTrust
        }
        let probe = NginxInterop.probe()
        let start = ContinuousClock.now
        await #expect {
            _ = try await session.data(for: try NginxInterop.request("hello.txt", probe: probe))
        } throws: { error in
            // The engine's own connect deadline (the handshake's hooks run within it) and Courier's limit on the
            // answer are the same timeout; whichever fires first fails the connection as timed out.
            (error as? URLError)?.code == .timedOut
        }
        #expect(ContinuousClock.now - start < .milliseconds(1900), "the connection failed at the connect timeout, not when the block returned")
        try await Self.expectNotLogged(probe)
    }

    @Test(arguments: [true, false])
    func operationChallengeBlockDecidesServerTrust(accept: Bool) async throws {
        let probe = NginxInterop.probe()
        let operation = HTTPRequestOperation(request: try NginxInterop.request("hello.txt", probe: probe))
        operation.securityPolicy = try Self.policy(strangerPin: accept)
        operation.cache = nil
        let trusts = Mutex<[ServerTrust]>([])
        operation.setWillSendRequestForAuthenticationChallengeBlock { challenge in
            guard let trust = challenge.serverTrust else { return .performDefaultHandling }
            trusts.withLock { $0.append(trust) }
            return accept ? .acceptServerTrust : .rejectProtectionSpace
        }
        await OperationFixtures.run([operation])
        #expect(trusts.withLock { $0.count } == 1)
        if accept {
            #expect(operation.response?.statusCode == 200, "\(String(describing: operation.error))")
        } else {
            #expect((operation.error as? URLError)?.code == .serverCertificateUntrusted, "\(String(describing: operation.error))")
            try await Self.expectNotLogged(probe)
        }
    }

    /// nginx never logged `probe`: a request made afterwards is logged, and nothing with `probe` before it.
    static func expectNotLogged(_ probe: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let later = NginxInterop.probe()
        let session = try NginxInterop.sessionManager()
        defer { session.invalidateSessionCancelingTasks(true) }
        _ = try await session.data(for: try NginxInterop.request("hello.txt", probe: later))
        _ = try await NginxInterop.accessLog(probe: later, count: 1)
        let log = try String(contentsOfFile: try #require(NginxInterop.accessLogPath), encoding: .utf8)
        #expect(!log.contains(probe), "nginx logged a request that should not have been sent", sourceLocation: sourceLocation)
    }
}
