import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP protocol steps: redirects, Basic and Digest authentication, cookies and timeouts.
extension Tour {
    func redirects(_ log: TourLog) async throws -> String {
        let manager = HTTPSessionManager(baseURL: servers.plain.baseURL, configuration: .ephemeral)
        defer { manager.invalidateSessionCancelingTasks(false) }
        let hops = Atomic<Int>(0)
        manager.setTaskWillPerformHTTPRedirectionBlock { _, _, response, proposed in
            hops.add(1, ordering: .relaxed)
            log.note("↪ \(response.statusCode) from \(response.url?.path ?? "?") → \(proposed.url?.path ?? "?")")
            return proposed
        }
        let (object, response) = try await manager.get("redirect/3")
        let landed = try dictionary(object, "the final body")["url"] as? String ?? "?"
        guard hops.load(ordering: .relaxed) == 3, response.statusCode == 200 else {
            throw TourStepFailure("\(hops.load(ordering: .relaxed)) hops, final status \(response.statusCode)")
        }
        return "/redirect/3 followed through 3 hops, each seen by the redirect block, to \(URL(string: landed)?.path ?? landed)"
    }

    func basicAuthentication(_ log: TourLog) async throws -> String {
        let path = "/basic-auth/courier/secret"
        let good = try await authenticatedGet(path, user: "courier", password: "secret", log: log)
        let wrong = try await authenticatedGet(path, user: "courier", password: "wrong", log: log)
        guard good.status == 200, good.authenticated, wrong.status == 401 else {
            throw TourStepFailure("right password → \(good.status), wrong password → \(wrong.status)")
        }
        return "the right password → 200 authenticated; a wrong one → 401 after one attempt"
    }

    func digestAuthentication(_ log: TourLog) async throws -> String {
        var outcomes: [String] = []
        for algorithm in ["MD5", "SHA-256"] {
            let outcome = try await authenticatedGet("/digest-auth/auth/courier/secret/\(algorithm)", user: "courier", password: "secret", log: log)
            guard outcome.status == 200, outcome.authenticated else { throw TourStepFailure("Digest \(algorithm) → \(outcome.status)") }
            outcomes.append("\(algorithm) → 200")
        }
        return "qop=auth, \(outcomes.joined(separator: ", ")), answering the server's 401 challenge"
    }

    /// GETs `path` with an operation holding the credential, and notes what the server received.
    private func authenticatedGet(_ path: String, user: String, password: String, log: TourLog) async throws -> (status: Int, authenticated: Bool) {
        let before = servers.plain.requestLog.count
        let operation = operations.httpRequestOperation(with: URLRequest(url: try url(path)), success: nil, failure: nil)
        operation.credential = URLCredential(user: user, password: password, persistence: .none)
        operation.shouldUseCredentialStorage = false
        operations.operationQueue.addOperation(operation)
        let object = try? await operation.responseObject()
        let status = operation.response?.statusCode ?? 0
        let seen = servers.plain.requestLog.requests.dropFirst(before).filter { $0.path == path }
        let headers = seen.map { request in
            request.header("Authorization").map { value in value.count > 48 ? value.prefix(45) + "…" : value } ?? "no Authorization"
        }
        log.note("\(user):\(password) \(path): the server saw \(headers.joined(separator: ", then ")) → \(status)")
        return (status, (object as? [String: Any])?["authenticated"] as? Bool == true)
    }

    func cookies(_ log: TourLog) async throws -> String {
        let (object, _) = try await session.get("cookies/set", parameters: ["flavour": "oatmeal"])
        let set = try dictionary(object, "the cookie echo")["cookies"] as? [String: String]
        let (later, _) = try await session.get("cookies")
        let sent = try dictionary(later, "the cookie echo")["cookies"] as? [String: String]
        guard set?["flavour"] == "oatmeal", sent?["flavour"] == "oatmeal" else {
            throw TourStepFailure("cookies were \(String(describing: set)), then \(String(describing: sent))")
        }
        let header = lastRecorded("/cookies")?.header("Cookie") ?? "?"
        return "Set-Cookie on a redirect stored in the session's jar; the next request sent Cookie: \(header)"
    }

    func timeout(_ log: TourLog) async throws -> String {
        var configuration = SessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0.5
        let manager = HTTPSessionManager(baseURL: servers.plain.baseURL, configuration: configuration)
        defer { manager.invalidateSessionCancelingTasks(true) }
        let started = ContinuousClock.now
        do {
            _ = try await manager.get("delay/3")
        } catch let error as URLError where error.code == .timedOut {
            let seconds = String(format: "%.2f", (ContinuousClock.now - started).seconds)
            return "/delay/3 with a 0.5 s request timeout → URLError(.timedOut) after \(seconds) s"
        }
        throw TourStepFailure("the request did not time out")
    }
}
