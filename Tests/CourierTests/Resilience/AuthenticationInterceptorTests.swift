import Courier
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Token refresh against the in-process server's `/bearer/:token` (only that token is accepted): one refresh for
/// many refused requests, waiting requests, failed refreshes and refresh loops.
@Suite("Authentication interceptor")
struct AuthenticationInterceptorTests {
    struct RefreshFailed: Error, Equatable {}

    /// A session whose requests go through `interceptor`.
    static func session(_ interceptor: some RequestInterceptor) -> URLSessionManager {
        SessionFixtures.manager { $0.interceptors = [interceptor] }
    }

    /// `count` concurrent GETs of `path`: their statuses, or errors.
    static func concurrently(_ count: Int, _ path: String, on session: URLSessionManager) async throws -> [Result<Int, any Error>] {
        let request = try await SessionFixtures.request(path)
        return await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do { return .success(try await session.data(for: request).1.statusCode) } catch { return .failure(error) }
                }
            }
            var results: [Result<Int, any Error>] = []
            for await result in group { results.append(result) }
            return results
        }
    }

    @Test func fiftyRefusedRequestsShareOneRefreshAndAllSucceed() async throws {
        let refreshes = Atomic<Int>(0)
        let interceptor = AuthenticationInterceptor(credential: BearerCredential(accessToken: "old")) { _ in
            refreshes.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(200))
            return BearerCredential(accessToken: "new")
        }
        let session = Self.session(interceptor)
        defer { session.invalidateSessionCancelingTasks(true) }
        let results = try await Self.concurrently(50, "/bearer/new", on: session)
        #expect(refreshes.load(ordering: .relaxed) == 1)
        #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 50), "\(results.filter { (try? $0.get()) != 200 })")
        #expect(interceptor.credential?.accessToken == "new")
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestWithItsError() async throws {
        let refreshes = Atomic<Int>(0)
        let interceptor = AuthenticationInterceptor(credential: BearerCredential(accessToken: "old")) { _ in
            refreshes.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(200))
            throw RefreshFailed()
        }
        let session = Self.session(interceptor)
        defer { session.invalidateSessionCancelingTasks(true) }
        let results = try await Self.concurrently(20, "/bearer/new", on: session)
        #expect(refreshes.load(ordering: .relaxed) == 1)
        for result in results {
            #expect {
                try result.get()
            } throws: { error in
                error as? RefreshFailed == RefreshFailed()
            }
        }
    }

    @Test func anExpiredCredentialIsRefreshedBeforeAnyRequestIsSent() async throws {
        let refreshes = Atomic<Int>(0)
        let expired = BearerCredential(accessToken: "old", refreshToken: "r1", expiration: Date().addingTimeInterval(-10))
        let interceptor = AuthenticationInterceptor(credential: expired) { credential in
            refreshes.add(1, ordering: .relaxed)
            #expect(credential.refreshToken == "r1")
            try await Task.sleep(for: .milliseconds(100))
            return BearerCredential(accessToken: "fresh", expiration: Date().addingTimeInterval(3600))
        }
        let session = Self.session(interceptor)
        defer { session.invalidateSessionCancelingTasks(true) }
        let results = try await Self.concurrently(10, "/bearer/fresh", on: session)
        #expect(refreshes.load(ordering: .relaxed) == 1)
        #expect(results.compactMap { try? $0.get() } == Array(repeating: 200, count: 10))
    }

    @Test func aServerRefusingEveryCredentialStopsAtTheRefreshWindow() async throws {
        let refreshes = Atomic<Int>(0)
        let interceptor = AuthenticationInterceptor(credential: BearerCredential(accessToken: "t0")) { _ in
            let count = refreshes.add(1, ordering: .relaxed).newValue
            return BearerCredential(accessToken: "t\(count)")
        }
        let session = Self.session(interceptor)
        defer { session.invalidateSessionCancelingTasks(true) }
        await #expect {
            _ = try await session.data(for: try await SessionFixtures.request("/bearer/never"))
        } throws: { error in
            guard case .excessiveRefresh(let count, _)? = error as? AuthenticationInterceptorError else { return false }
            return count == 2
        }
        #expect(refreshes.load(ordering: .relaxed) == 2)
    }

    @Test func withoutACredentialNothingIsSent() async throws {
        let interceptor = AuthenticationInterceptor<BearerCredential>(credential: nil) { $0 }
        let session = Self.session(interceptor)
        defer { session.invalidateSessionCancelingTasks(true) }
        await #expect {
            _ = try await session.data(for: try await SessionFixtures.request("/bearer/x"))
        } throws: { error in
            if case .missingCredential? = error as? AuthenticationInterceptorError { return true }
            return false
        }
    }
}
