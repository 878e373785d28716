import Foundation
import Hummingbird

/// `/basic-auth/:user/:passwd`, `/hidden-basic-auth/:user/:passwd`, `/bearer` (any token), `/bearer/:token` (only
/// `Authorization: Bearer <token>`; anything else is `401` with `WWW-Authenticate: Bearer error="invalid_token"`).
enum BasicAuthRoutes {
    static func register(on router: Router<ServerContext>) {
        router.get("/basic-auth/:user/:passwd") { request, context in
            try basicAuth(request, context: context, hidden: false)
        }
        router.get("/hidden-basic-auth/:user/:passwd") { request, context in
            try basicAuth(request, context: context, hidden: true)
        }
        router.get("/bearer") { request, _ in
            let authorization = request.headers[.authorization] ?? ""
            guard authorization.lowercased().hasPrefix("bearer "), authorization.count > 7 else {
                return Responses.empty(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
            }
            return Responses.json(["authenticated": true, "token": .string(String(authorization.dropFirst(7)))])
        }
        router.get("/bearer/:token") { request, context in
            let expected = try context.parameters.requireDecoded("token")
            guard request.headers[.authorization] == "Bearer \(expected)" else {
                return Responses.empty(status: .unauthorized, headers: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
            }
            return Responses.json(["authenticated": true, "token": .string(expected)])
        }
    }

    private static func basicAuth(_ request: Request, context: ServerContext, hidden: Bool) throws -> Response {
        let user = try context.parameters.requireDecoded("user")
        let password = try context.parameters.requireDecoded("passwd")
        guard let presented = credentials(request), presented == (user, password) else {
            if hidden { return Responses.json(["error": "not found"], status: .notFound) }
            return Responses.empty(status: .unauthorized, headers: [.wwwAuthenticate: #"Basic realm="Fake Realm""#])
        }
        return Responses.json(["authenticated": true, "user": .string(user)])
    }

    /// The user and password of a `Basic` `Authorization` header.
    static func credentials(_ request: Request) -> (String, String)? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: header.dropFirst(6).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
