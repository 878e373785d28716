import Foundation
import Hummingbird

/// `/cookies`, `/cookies/set`, `/cookies/set/:name/:value`, `/cookies/delete`, `/cookies/set-attrs`.
enum CookieRoutes {
    static func register(on router: Router<ServerContext>) {
        router.get("/cookies") { request, _ in
            Responses.json(["cookies": .object(requestCookies(request).mapValues(JSONValue.string))])
        }
        router.get("/cookies/set") { request, _ in
            let pairs = try QueryOptions(request).pairs
            return try redirectToCookies(setting: pairs.map { try cookie(name: $0.name, value: $0.value) + "; Path=/" })
        }
        router.get("/cookies/set/:name/:value") { _, context in
            let name = try context.parameters.require("name")
            let value = try context.parameters.require("value")
            return try redirectToCookies(setting: [cookie(name: name, value: value) + "; Path=/"])
        }
        router.get("/cookies/delete") { request, _ in
            let names = try QueryOptions(request).pairs.map(\.name)
            return try redirectToCookies(
                setting: names.map { try cookie(name: $0, value: "") + "; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/" }
            )
        }
        router.get("/cookies/set-attrs") { request, _ in
            let options = try QueryOptions(request)
            guard let name = options.string("name") else { throw Responses.badRequest("name is required") }
            var header = try cookie(name: name, value: options.string("value") ?? "")
            for (parameter, attribute) in [("path", "Path"), ("domain", "Domain"), ("max_age", "Max-Age"), ("expires", "Expires"), ("samesite", "SameSite")] {
                guard let value = options.string(parameter) else { continue }
                guard isSafeAttributeValue(value) else { throw Responses.badRequest("invalid \(parameter)") }
                header += "; \(attribute)=\(value)"
            }
            for (parameter, attribute) in [("secure", "Secure"), ("httponly", "HttpOnly")] where isTrue(options.string(parameter)) {
                header += "; \(attribute)"
            }
            return Responses.json(["set-cookie": .string(header)], headers: [.setCookie: header])
        }
    }

    /// The cookies of the request's `Cookie` header(s); later duplicates win.
    static func requestCookies(_ request: Request) -> [String: String] {
        var cookies: [String: String] = [:]
        for value in request.headers[values: .cookie] {
            for item in value.split(separator: ";") {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { continue }
                cookies[name] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            }
        }
        return cookies
    }

    /// `name=value`, after checking both are valid cookie text (RFC 6265 §4.1.1).
    private static func cookie(name: String, value: String) throws -> String {
        let separators = Set("()<>@,;:\\\"/[]?={} \t")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && !separators.contains(Character($0)) }) else {
            throw Responses.badRequest("invalid cookie name")
        }
        guard value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && !",;\\\"".unicodeScalars.contains($0) }) else {
            throw Responses.badRequest("invalid cookie value")
        }
        return "\(name)=\(value)"
    }

    private static func isSafeAttributeValue(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F && $0 != ";" }
    }

    private static func isTrue(_ value: String?) -> Bool {
        guard let value else { return false }
        return ["", "1", "true", "yes"].contains(value.lowercased())
    }

    private static func redirectToCookies(setting cookies: [String]) throws -> Response {
        var response = Responses.redirect(to: "/cookies")
        response.headers[values: .setCookie] = cookies
        return response
    }
}
