import Courier
import CourierTesting
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RetryPolicy and the interception stage, over StubTransport: the defaults, backoff with jitter, Retry-After and its
/// cap, the budget, and which requests and bodies may go again.
@Suite("Retry policy")
struct RetryPolicyTests {
    /// A policy without delays (scale 0), for tests that count attempts.
    static func immediate(retryLimit: Int = 2, budget: RetryBudget? = nil) -> RetryPolicy {
        RetryPolicy(retryLimit: retryLimit, exponentialBackoffScale: 0, budget: budget)
    }

    static func run(
        _ path: String = "thing", method: String = "GET", body: Data? = nil, over stub: StubTransport,
        configure: (inout ExchangeConfiguration) -> Void
    ) async -> Result<ExchangeResult, any Error> {
        let exchange = StageTests.exchange(path, method: method, body: body, over: stub, configure: configure)
        do { return .success(try await exchange.result()) } catch { return .failure(error) }
    }

    @Test func defaultsAreAlamofiresAndMore() {
        let policy = RetryPolicy()
        #expect(policy.retryLimit == 2)
        #expect(policy.exponentialBackoffBase == 2)
        #expect(policy.exponentialBackoffScale == 0.5)
        #expect(policy.jitter)
        #expect(policy.retryableHTTPMethods == ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"])
        #expect(policy.retryableHTTPStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(policy.retryableURLErrorCodes.isSuperset(of: [.timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet]))
        #expect(!policy.retryableURLErrorCodes.contains(.cancelled))
        #expect(!policy.retryableURLErrorCodes.contains(.serverCertificateUntrusted))
        #expect(policy.maximumRetryAfter == 30)
        #expect(policy.budget?.ratio == 0.2)
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatusesAreRetriedUpToTheLimit(_ status: Int) async throws {
        let stub = StubTransport { _ in StubResponse(statusCode: status) }
        let outcome = await Self.run(over: stub) { $0.interceptors = [Self.immediate()] }
        #expect(try outcome.get().response.statusCode == status, "after the limit, the last response is delivered")
        #expect(stub.requests.count == 3, "the first attempt and 2 retries")
    }

    @Test(arguments: [400, 401, 403, 404, 409, 501])
    func otherStatusesAreNotRetried(_ status: Int) async throws {
        let stub = StubTransport { _ in StubResponse(statusCode: status) }
        _ = await Self.run(over: stub) { $0.interceptors = [Self.immediate()] }
        #expect(stub.requests.count == 1)
    }

    @Test func transientErrorsAreRetriedAndThenRecover() async throws {
        let calls = Atomic<Int>(0)
        let stub = StubTransport { _ in
            calls.add(1, ordering: .relaxed).oldValue < 2 ? .failure(.networkConnectionLost) : StubResponse(statusCode: 200)
        }
        let retries = Mutex<[RetryEvent]>([])
        let outcome = await Self.run(over: stub) {
            $0.interceptors = [Self.immediate()]
            $0.handlers.willRetry = { event in retries.withLock { $0.append(event) } }
        }
        #expect(try outcome.get().response.statusCode == 200)
        #expect(retries.withLock { $0.map(\.retryNumber) } == [1, 2])
        #expect(try outcome.get().metrics.transactions.count == 3, "every attempt is in the metrics")
    }

    @Test func nonTransientErrorsAreNotRetried() async throws {
        for code in [URLError.Code.cancelled, .badURL, .serverCertificateUntrusted, .userAuthenticationRequired] {
            let stub = StubTransport { _ in .failure(code) }
            let outcome = await Self.run(over: stub) { $0.interceptors = [Self.immediate()] }
            #expect(stub.requests.count == 1, "\(code)")
            #expect(throws: URLError.self) { try outcome.get() }
        }
    }

    @Test func backoffIsExponentialWithFullJitter() {
        let plain = RetryPolicy(jitter: false)
        #expect(plain.backoffCeiling(afterAttempt: 0) == 0.5)
        #expect(plain.backoffCeiling(afterAttempt: 1) == 1)
        #expect(plain.backoffCeiling(afterAttempt: 2) == 2)
        let jittered = RetryPolicy()
        for attempt in 0..<3 {
            let ceiling = jittered.backoffCeiling(afterAttempt: attempt)
            let delays = (0..<2000).map { _ in jittered.backoff(afterAttempt: attempt) }
            #expect(delays.allSatisfy { (0...ceiling).contains($0) })
            // Full jitter spreads over the whole range, not around its top.
            #expect(delays.min()! < ceiling * 0.05 && delays.max()! > ceiling * 0.95)
            let mean = delays.reduce(0, +) / Double(delays.count)
            #expect(abs(mean - ceiling / 2) < ceiling * 0.05, "mean \(mean) for ceiling \(ceiling)")
        }
    }

    @Test func retryAfterInBothFormsSetsTheDelay() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryPolicy.retryAfter("7") == 7)
        #expect(RetryPolicy.retryAfter(" 0 ") == 0)
        let date = Date(timeIntervalSince1970: 1_800_000_042)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(RetryPolicy.retryAfter(formatter.string(from: date), now: now) == 42)
        #expect(RetryPolicy.retryAfter(formatter.string(from: now.addingTimeInterval(-60)), now: now) == 0, "a past date is now")
        #expect(RetryPolicy.retryAfter("soon") == nil)
        #expect(RetryPolicy.retryAfter("-5") == nil)
        #expect(RetryPolicy.retryAfter(nil) == nil)

        for (status, header) in [(503, "1"), (429, formatter.string(from: Date().addingTimeInterval(2)))] {
            let policy = RetryPolicy(jitter: false)
            let decision = await policy.retry(
                URLRequest(url: URL(string: "http://api.example/")!), response: Self.response(status, retryAfter: header),
                error: URLError(.badServerResponse), attempt: RequestAttempt(number: 0, canResendBody: true)
            )
            guard case .retry(after: let delay) = decision else { Issue.record("\(decision)"); continue }
            #expect(delay > 0.9 && delay <= 2, "\(status) Retry-After \(header): \(delay)")
        }
        // Retry-After on another status is not a reason to wait: the backoff applies.
        let backoff = await RetryPolicy(jitter: false).retry(
            URLRequest(url: URL(string: "http://api.example/")!), response: Self.response(500, retryAfter: "20"),
            error: URLError(.badServerResponse), attempt: RequestAttempt(number: 0, canResendBody: true)
        )
        guard case .retry(after: let delay) = backoff else { Issue.record("\(backoff)"); return }
        #expect(delay == 0.5)
    }

    @Test func retryAfterBeyondTheCapFailsAtOnceWithTheServersAnswer() async throws {
        let stub = StubTransport { _ in StubResponse(statusCode: 503, headers: [("Retry-After", "3600")]) }
        let start = ContinuousClock.now
        let outcome = await Self.run(over: stub) { $0.interceptors = [RetryPolicy()] }
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(stub.requests.count == 1)
        #expect {
            try outcome.get()
        } throws: { error in
            guard let error = error as? RetryAfterTooLongError else { return false }
            return error.statusCode == 503 && error.retryAfter == 3600 && error.maximum == 30
        }
    }

    @Test func anEnormousRetryAfterIsTooLongNotACrash() async throws {
        let digits = String(repeating: "9", count: 400)
        #expect(RetryPolicy.retryAfter(digits) == RetryPolicy.longestRetryAfter)
        #expect(RetryPolicy.retryAfter("10000000000000000000") == RetryPolicy.longestRetryAfter)
        let stub = StubTransport { _ in StubResponse(statusCode: 429, headers: [("Retry-After", digits)]) }
        let outcome = await Self.run(over: stub) { $0.interceptors = [RetryPolicy()] }
        #expect {
            try outcome.get()
        } throws: { error in
            guard let error = error as? RetryAfterTooLongError else { return false }
            return error.description.contains("1000000000 s") && error.statusCode == 429
        }
    }

    @Test func theBudgetHoldsAFailingBackendToItsShare() async throws {
        let budget = RetryBudget()
        let policy = Self.immediate(retryLimit: 2, budget: budget)
        let stub = StubTransport { _ in StubResponse(statusCode: 503) }
        for index in 0..<1000 {
            _ = await Self.run("r\(index)", over: stub) { $0.interceptors = [policy] }
        }
        let sent = stub.requests.count
        // 1,000 requests, at most 20 % more, plus the initial balance of 10.
        #expect(sent >= 1000 + 200 && sent <= 1000 + 200 + 10, "\(sent) requests reached the failing backend")
        // Without a budget the same backend gets three times the load.
        let unlimited = StubTransport { _ in StubResponse(statusCode: 503) }
        let noBudget = Self.immediate(retryLimit: 2, budget: nil)
        for index in 0..<100 {
            _ = await Self.run("u\(index)", over: unlimited) { $0.interceptors = [noBudget] }
        }
        #expect(unlimited.requests.count == 300)
    }

    @Test func aPOSTGoesAgainOnlyWhenTheServerNeverGotIt() async throws {
        for (code, expected) in [(URLError.Code.networkConnectionLost, 1), (.timedOut, 1), (.cannotConnectToHost, 3), (.cannotFindHost, 3)] {
            let stub = StubTransport { _ in .failure(code) }
            _ = await Self.run(method: "POST", body: Data("{}".utf8), over: stub) { $0.interceptors = [Self.immediate()] }
            #expect(stub.requests.count == expected, "POST after \(code)")
        }
        let status = StubTransport { _ in StubResponse(statusCode: 503) }
        _ = await Self.run(method: "POST", body: Data("{}".utf8), over: status) { $0.interceptors = [Self.immediate()] }
        #expect(status.requests.count == 1, "a POST that got a response was received")
    }

    @Test func aBodyThatCannotBeSentAgainIsNotRetried() async throws {
        let stub = StubTransport { _ in StubResponse(statusCode: 503) }
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("chunk".utf8))
            continuation.finish()
        }
        _ = await Self.run(method: "PUT", over: stub) {
            $0.interceptors = [Self.immediate()]
            $0.body = .asyncSequence(chunks)
        }
        #expect(stub.requests.count == 1)
        let data = StubTransport { _ in StubResponse(statusCode: 503) }
        _ = await Self.run(method: "PUT", body: Data("same bytes".utf8), over: data) { $0.interceptors = [Self.immediate()] }
        #expect(data.requests.count == 3)
        #expect(Set(data.requests.map { $0.body }).count == 1, "each retry sends the same body")
    }

    @Test func adaptersRunBeforeEveryAttemptInOrder() async throws {
        let stub = StubTransport { request in
            request.headers.contains { $0.name == "Attempt" && $0.value == "2" } ? StubResponse(statusCode: 200) : StubResponse(statusCode: 503)
        }
        let sessionLevel = Adapter { request, attempt in
            var request = request
            request.setValue("\(attempt.number)", forHTTPHeaderField: "Attempt")
            request.setValue("session", forHTTPHeaderField: "Order")
            return request
        }
        let requestLevel = Adapter { request, _ in
            var request = request
            request.setValue((request.value(forHTTPHeaderField: "Order") ?? "") + ",request", forHTTPHeaderField: "Order")
            return request
        }
        let outcome = await Self.run(over: stub) { $0.interceptors = [sessionLevel, requestLevel, Self.immediate()] }
        #expect(try outcome.get().response.statusCode == 200)
        #expect(stub.requests.map { $0.headers.first { $0.name == "Attempt" }?.value } == ["0", "1", "2"])
        #expect(stub.requests.allSatisfy { $0.headers.contains { $0.name == "Order" && $0.value == "session,request" } })
    }

    @Test func aCompositeAsksRetriersInOrderUntilOneDecides() async throws {
        let asked = Mutex<[String]>([])
        let first = Retrier { _, _, _, _ in asked.withLock { $0.append("first") }; return .doNotRetry }
        let second = Retrier { _, _, _, attempt in asked.withLock { $0.append("second") }; return attempt.number == 0 ? .retry : .doNotRetry(with: URLError(.dataNotAllowed)) }
        let third = Retrier { _, _, _, _ in asked.withLock { $0.append("third") }; return .retry }
        let stub = StubTransport { _ in StubResponse(statusCode: 500) }
        let outcome = await Self.run(over: stub) { $0.interceptors = [Interceptor(retriers: [first, second, third])] }
        #expect(asked.withLock { $0 } == ["first", "second", "first", "second"])
        #expect((try? outcome.get()) == nil)
        #expect(stub.requests.count == 2)
    }

    @Test func cancellingDuringTheDelayStopsTheWait() async throws {
        let stub = StubTransport { _ in StubResponse(statusCode: 503, headers: [("Retry-After", "20")]) }
        let waiting = Atomic<Bool>(false)
        let exchange = StageTests.exchange("slow", over: stub) {
            $0.interceptors = [RetryPolicy()]
            // Called with the retry decided, just before its delay is waited.
            $0.handlers.willRetry = { _ in waiting.store(true, ordering: .releasing) }
        }
        let task = Task { try await exchange.result() }
        // Cancelled during the 20 s wait.
        #expect(await eventually(timeout: .seconds(5)) { waiting.load(ordering: .acquiring) })
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(stub.requests.count == 1)
    }

    static func response(_ status: Int, retryAfter: String) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: "http://api.example/")!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Retry-After": retryAfter])!
    }
}
