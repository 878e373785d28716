import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: AuthenticationStage against StubTransport")
struct AuthenticationStageTests {
    static let challenge = StubResponse(statusCode: 401, headers: [("WWW-Authenticate", #"Basic realm="api""#)])

    /// 401 until the request carries `expected`.
    static func guarded(expecting expected: String) -> StubTransport {
        StubTransport { request in
            request.value(forHTTPHeaderField: "Authorization") == expected ? .text("welcome") : challenge
        }
    }

    @Test func aBasicChallengeIsAnsweredWithTheCredential() async throws {
        let stub = Self.guarded(expecting: "Basic YWRhOmxvdmVsYWNl")
        let result = try await StageTests.exchange("/private", over: stub) {
            $0.credential = URLCredential(user: "ada", password: "lovelace", persistence: .none)
        }.result()
        #expect(result.response.statusCode == 200)
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [nil, "Basic YWRhOmxvdmVsYWNl"])
    }

    @Test func theCredentialNeverFollowsARedirectToAnotherOrigin() async throws {
        let stub = StubTransport { request in
            request.url.host == "api.example" ? .redirect(to: "http://other.example/private") : Self.challenge
        }
        let result = try await StageTests.exchange("/start", over: stub) {
            $0.credential = URLCredential(user: "ada", password: "lovelace", persistence: .none)
        }.result()
        #expect(result.response.statusCode == 401)
        #expect(stub.requests.count == 2)
        #expect(stub.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
    }

    @Test func aHandlerThatKeepsAnsweringIsCappedPerRequest() async throws {
        let stub = Self.guarded(expecting: "never")
        let asked = Atomic(0)
        let result = try await StageTests.exchange("/private", over: stub) {
            $0.maximumAuthenticationAttempts = 2
            $0.handlers.challengeHandler = { _ in
                asked.add(1, ordering: .relaxed)
                return .useCredential(URLCredential(user: "ada", password: "wrong", persistence: .none))
            }
        }.result()
        #expect(result.response.statusCode == 401)
        #expect(asked.load(ordering: .relaxed) == 2)
        #expect(stub.requests.count == 3)
    }

    @Test func cancellingTheChallengeCancelsTheExchange() async throws {
        let stub = Self.guarded(expecting: "never")
        let exchange = StageTests.exchange("/private", over: stub) { $0.handlers.challengeHandler = { _ in .cancel } }
        await #expect { _ = try await exchange.result() } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(exchange.phase == .cancelled)
        #expect(stub.requests.count == 1)
    }

    @Test func aCredentialThatWorkedIsRemembered() async throws {
        let store = CredentialStore()
        let stub = Self.guarded(expecting: "Basic YWRhOmxvdmVsYWNl")
        _ = try await StageTests.exchange("/private", over: stub) {
            $0.credentialStore = store
            $0.handlers.challengeHandler = { _ in .useCredential(URLCredential(user: "ada", password: "lovelace", persistence: .forSession)) }
        }.result()
        #expect(store.credential(host: "api.example", port: 80, realm: "api")?.user == "ada")

        stub.removeAllRequests()
        _ = try await StageTests.exchange("/private", over: stub) { $0.credentialStore = store }.result()
        #expect(stub.requests.last?.value(forHTTPHeaderField: "Authorization") == "Basic YWRhOmxvdmVsYWNl", "the store answers the next challenge")
    }
}
