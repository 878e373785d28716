import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers `401` Basic and Digest challenges (RFC 7617, RFC 7616) and sends the request again with the answer.
///
/// The credential comes from the challenge handler, else from ``credential`` (only for the origin of the exchange's
/// request as given: a redirect to another origin never receives it, as curl without `--location-trusted`), else
/// from the ``credentialStore`` entry for the protection space. A credential that failed once is not sent again by
/// default; one that worked is remembered in the store. At most ``maximumAttempts`` answers go out per request;
/// then the `401` is the result.
struct AuthenticationStage: ExchangeStage {
    /// The credential for the origin of the exchange's request.
    let credential: URLCredential?
    /// Consulted for other protection spaces, and updated with credentials that worked.
    let credentialStore: CredentialStore?
    /// Decide how to answer each challenge (when they answer challenges), and supply a fresh body stream when a
    /// stream upload is sent again.
    let hooks: any ExchangeHooks
    /// The most answers sent for one request.
    let maximumAttempts: Int

    /// Creates the stage from an exchange's ``ExchangeConfiguration/credential``,
    /// ``ExchangeConfiguration/credentialStore``, ``ExchangeConfiguration/hooks`` and
    /// ``ExchangeConfiguration/maximumAuthenticationAttempts``.
    init(configuration: ExchangeConfiguration) {
        credential = configuration.credential
        credentialStore = configuration.credentialStore
        hooks = configuration.hooks
        maximumAttempts = configuration.maximumAuthenticationAttempts
    }

    private struct Answer {
        let header: String
        let credential: URLCredential
        let space: AuthenticationChallenge.ProtectionSpace
    }

    /// Sends the request and answers each `401` challenge it can (see the type's discussion) by sending it again.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        var sent = request
        var answer: Answer?
        var failures: [AuthenticationChallenge.ProtectionSpace: Int] = [:]
        var answers = 0
        while true {
            let response = try await next(sent)
            let status = response.head.statusCode
            if let answer, status != 401 {
                credentialStore?.set(answer.credential, host: answer.space.host, port: answer.space.port, realm: answer.space.realm)
            }
            guard status == 401, answers < maximumAttempts,
                  let challenged = try await self.answer(response, to: request, failures: &failures)
            else { return response }
            try await FollowUpRequest.abandon(response, sentBody: sent.body)
            answers += 1
            answer = challenged
            sent = request
            sent.urlRequest.setValue(challenged.header, forHTTPHeaderField: "Authorization")
            sent.body = FollowUpRequest.body(request.body, resentWith: request.urlRequest, hooks: hooks)
        }
    }

    /// The answer to the challenge in `response`, or `nil` to deliver the `401`.
    private func answer(
        _ response: StageResponse,
        to request: StageRequest,
        failures: inout [AuthenticationChallenge.ProtectionSpace: Int]
    ) async throws -> Answer? {
        let urlRequest = request.urlRequest
        guard let url = urlRequest.url, let host = url.host else { return nil }
        let headers = response.transportResponse.headerFields.filter { $0.name.isHeaderName("WWW-Authenticate") }.map(\.value)
        let schemes = ChallengeParser.schemes(from: headers)
        guard let scheme = schemes.first(where: { $0.name == "digest" && DigestHash(name: $0.parameters["algorithm"] ?? "MD5") != nil })
            ?? schemes.first(where: { $0.name == "basic" })
        else { return nil }

        let space = AuthenticationChallenge.ProtectionSpace(
            host: host.lowercased(),
            port: url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80),
            scheme: url.scheme?.lowercased() ?? "http",
            realm: scheme.realm,
            authenticationMethod: scheme.name
        )
        let failed = failures[space, default: 0]
        let ownCredential = request.originalRequest.url.map(Origin.init) == Origin(url) ? credential : nil
        let challenge = AuthenticationChallenge(
            scheme: scheme,
            protectionSpace: space,
            previousFailureCount: failed,
            proposedCredential: failed > 0 ? ownCredential : nil,
            failureResponse: response.head,
            request: urlRequest
        )
        let chosen: URLCredential?
        switch hooks.answersChallenges ? await hooks.answer(challenge) : .performDefaultHandling {
        case .useCredential(let credential):
            chosen = credential
        case .performDefaultHandling, .acceptServerTrust:
            // A credential that failed once is not sent again.
            chosen = failed == 0
                ? ownCredential ?? credentialStore?.credential(host: space.host, port: space.port, realm: space.realm)
                : nil
        case .continueWithoutCredential, .rejectProtectionSpace:
            chosen = nil
        case .cancel:
            response.body.cancel()
            throw URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "The authentication challenge was cancelled.",
            ])
        }
        guard let chosen, let user = chosen.user, let password = chosen.password else { return nil }
        failures[space] = failed + 1
        ExchangeLog.decision("answering authentication challenge", [
            "courier.auth.scheme": "\(scheme.name)",
            "courier.auth.realm": "\(space.realm ?? "")",
            "courier.auth.attempt": "\(failed + 1)",
        ])

        let header: String?
        if scheme.name == "digest" {
            header = AuthorizationHeader.digest(
                scheme: scheme, user: user, password: password,
                method: (urlRequest.httpMethod ?? "GET").uppercased(), uri: Self.requestTarget(of: url)
            )
        } else {
            header = AuthorizationHeader.basic(user: user, password: password)
        }
        return header.map { Answer(header: $0, credential: chosen, space: space) }
    }

    /// The request target Digest signs: the path (never empty) and the query, as sent.
    private static func requestTarget(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        return (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}
