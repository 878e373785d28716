import Foundation
import Hummingbird

/// `/digest-auth/:qop/:user/:passwd[/:algorithm[/:stale_after]]` — HTTP Digest (RFC 7616), verified for real.
///
/// `qop` is `auth`, `auth-int`, or anything else for the legacy RFC 2069 form without qop;
/// `algorithm` is `MD5` (default), `SHA-256` or `SHA-512`, each also as `-sess`.
enum DigestAuthRoutes {
    /// The realm of every challenge.
    static let realm = "courier-test@example.com"

    static func register(on router: Router<ServerContext>, environment: RouteEnvironment) {
        for path in [
            "/digest-auth/:qop/:user/:passwd",
            "/digest-auth/:qop/:user/:passwd/:algorithm",
            "/digest-auth/:qop/:user/:passwd/:algorithm/:stale_after",
        ] {
            for method in EchoRoutes.anyMethod {
                router.on(RouterPath(path), method: method) { request, context in
                    try await digestAuth(request, context: context, nonces: environment.digestNonces)
                }
            }
        }
    }

    private static func digestAuth(_ request: Request, context: ServerContext, nonces: DigestNonceStore) async throws -> Response {
        let user = try context.parameters.requireDecoded("user")
        let password = try context.parameters.requireDecoded("passwd")
        let qopParameter = try context.parameters.require("qop")
        let qop: String? = ["auth", "auth-int"].contains(qopParameter) ? qopParameter : nil
        guard let algorithm = DigestAlgorithm(name: context.parameters.get("algorithm") ?? "MD5") else {
            throw Responses.badRequest("unsupported digest algorithm; use MD5, SHA-256 or SHA-512 (optionally -sess)")
        }
        let staleAfter: Int? = try context.parameters.get("stale_after").map { text in
            guard let value = Int(text), value >= 0 else { throw Responses.badRequest("invalid stale_after") }
            return value
        }
        func challenge(stale: Bool) -> Response {
            var fields = [
                #"realm="\#(realm)""#,
                #"nonce="\#(nonces.issue())""#,
                #"opaque="\#(nonces.opaque)""#,
                "algorithm=\(algorithm.name)",
                "stale=\(stale ? "TRUE" : "FALSE")",
            ]
            if let qop { fields.insert(#"qop="\#(qop)""#, at: 1) }
            return Responses.empty(status: .unauthorized, headers: [.wwwAuthenticate: "Digest " + fields.joined(separator: ", ")])
        }

        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("digest ") else {
            return challenge(stale: false)
        }
        let presented = HeaderParameters.pairs(HeaderParameters.split(String(header.dropFirst(7)), separator: ","))
        let bodyHash: String?
        if qop == "auth-int" {
            let body = try await BodySummary.read(request.body, keepingUpTo: BodyLimits.maxParsedBody)
            guard let bytes = body.bytes else { throw HTTPError(.contentTooLarge) }
            bodyHash = algorithm.digest(bytes: Data(bytes.readableBytesView))
        } else {
            bodyHash = nil
        }
        let expected = DigestComputation(
            algorithm: algorithm,
            user: user,
            password: password,
            method: request.method.rawValue,
            qop: qop,
            bodyHash: bodyHash
        )
        guard let nonce = presented["nonce"], expected.accepts(presented, target: request.target, opaque: nonces.opaque) else {
            return challenge(stale: false)
        }
        let count = presented["nc"].flatMap { UInt64($0, radix: 16) } ?? 0
        guard nonces.use(nonce, count: count, staleAfter: staleAfter) == .valid else {
            return challenge(stale: true)
        }
        return Responses.json(["authenticated": true, "user": .string(user)])
    }
}

/// The server side of a digest response computation (RFC 7616 §3.4.1).
struct DigestComputation {
    let algorithm: DigestAlgorithm
    let user: String
    let password: String
    let method: String
    let qop: String?
    /// H(entity-body), for `auth-int`.
    let bodyHash: String?

    /// True when the presented `Authorization` parameters are for this user, realm, URI and
    /// algorithm, and their `response` is the correct hash.
    func accepts(_ presented: [String: String], target: String, opaque: String) -> Bool {
        guard presented["username"] == user,
            presented["realm"] == DigestAuthRoutes.realm,
            presented["uri"] == target,
            presented["opaque"] == opaque,
            DigestAlgorithm(name: presented["algorithm"] ?? "MD5") == algorithm,
            presented["qop"] == qop,
            let nonce = presented["nonce"],
            let response = presented["response"]
        else { return false }
        return response.lowercased() == self.response(nonce: nonce, uri: target, nc: presented["nc"], cnonce: presented["cnonce"])
    }

    /// The expected `response` value, or `nil` when qop needs `nc` and `cnonce` and one is missing.
    func response(nonce: String, uri: String, nc: String?, cnonce: String?) -> String? {
        var ha1 = algorithm.digest("\(user):\(DigestAuthRoutes.realm):\(password)")
        if algorithm.session {
            guard let cnonce else { return nil }
            ha1 = algorithm.digest("\(ha1):\(nonce):\(cnonce)")
        }
        let ha2 = algorithm.digest([method, uri, bodyHash].compactMap { $0 }.joined(separator: ":"))
        guard let qop else {
            return algorithm.digest("\(ha1):\(nonce):\(ha2)")
        }
        guard let nc, let cnonce else { return nil }
        return algorithm.digest("\(ha1):\(nonce):\(nc):\(cnonce):\(qop):\(ha2)")
    }
}
