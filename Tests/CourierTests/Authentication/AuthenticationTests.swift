import Synchronization
import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Exchange: Basic and Digest authentication against the test server")
struct AuthenticationTests {
    static let good = URLCredential(user: "user", password: "pässwörd", persistence: .forSession)
    static let wrong = URLCredential(user: "user", password: "nope", persistence: .forSession)

    static let protectedPaths = [
        "/basic-auth/user/p%C3%A4ssw%C3%B6rd",
        "/digest-auth/auth/user/p%C3%A4ssw%C3%B6rd/MD5",
        "/digest-auth/auth/user/p%C3%A4ssw%C3%B6rd/SHA-256",
    ]

    @Test(arguments: protectedPaths)
    func goodCredential(path: String) async throws {
        let result = try await Fixtures.exchange(path) { $0.credential = Self.good }
        #expect(result.response.statusCode == 200)
        #expect(try Fixtures.json(result)["authenticated"] as? Bool == true)
    }

    @Test(arguments: protectedPaths)
    func wrongCredentialIsTriedOnceThen401(path: String) async throws {
        let challenges = Atomic<Int>(0)
        let result = try await Fixtures.exchange(path) { configuration in
            configuration.credential = Self.wrong
            configuration.handlers.challengeHandler = { challenge in
                challenges.add(1, ordering: .relaxed)
                return .performDefaultHandling
            }
        }
        #expect(result.response.statusCode == 401)
        #expect(challenges.load(ordering: .relaxed) == 2, "first challenge answered, second declined")
    }

    @Test(arguments: protectedPaths)
    func missingCredentialDelivers401(path: String) async throws {
        let result = try await Fixtures.exchange(path)
        #expect(result.response.statusCode == 401)
    }

    @Test func hookSuppliesTheCredential() async throws {
        let seen = Mutex<AuthenticationChallenge.ProtectionSpace?>(nil)
        let result = try await Fixtures.exchange("/digest-auth/auth/u/p/SHA-256") { configuration in
            configuration.handlers.challengeHandler = { challenge in
                seen.withLock { $0 = challenge.protectionSpace }
                return .useCredential(URLCredential(user: "u", password: "p", persistence: .none))
            }
        }
        #expect(result.response.statusCode == 200)
        #expect(seen.withLock { $0?.authenticationMethod } == "digest")
        #expect(seen.withLock { $0?.realm } != nil)
    }

    @Test func hookForeverReturningAWrongCredentialIsCapped() async throws {
        let calls = Atomic<Int>(0)
        let result = try await Fixtures.exchange("/basic-auth/u/p") { configuration in
            configuration.handlers.challengeHandler = { _ in
                calls.add(1, ordering: .relaxed)
                return .useCredential(URLCredential(user: "u", password: "bad", persistence: .none))
            }
        }
        #expect(result.response.statusCode == 401)
        #expect(calls.load(ordering: .relaxed) <= 4)
    }

    @Test func hookCancelling() async throws {
        await #expect {
            _ = try await Fixtures.exchange("/basic-auth/u/p") { $0.handlers.challengeHandler = { _ in .cancel } }
        } throws: { ($0 as? URLError)?.code == .cancelled }
    }

    @Test func credentialStoreIsConsultedAndUpdated() async throws {
        let store = CredentialStore()
        let first = try await Fixtures.exchange("/basic-auth/a/b") { configuration in
            configuration.credential = URLCredential(user: "a", password: "b", persistence: .forSession)
            configuration.credentialStore = store
        }
        #expect(first.response.statusCode == 200)
        let second = try await Fixtures.exchange("/basic-auth/a/b") { $0.credentialStore = store }
        #expect(second.response.statusCode == 200, "the working credential was remembered")
    }

    @Test func hiddenBasicAuthIsA404WithoutChallenge() async throws {
        let result = try await Fixtures.exchange("/hidden-basic-auth/u/p") { $0.credential = URLCredential(user: "u", password: "p", persistence: .none) }
        #expect(result.response.statusCode == 404)
    }
}
