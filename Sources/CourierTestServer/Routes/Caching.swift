import Foundation
import Hummingbird

/// `/etag/:etag`, `/cache`, `/cache/:n`, `/response-headers`.
enum CachingRoutes {
    static func register(on router: Router<ServerContext>, environment: RouteEnvironment) {
        router.get("/etag/:etag") { request, context in
            let etag = "\"\(try context.parameters.require("etag"))\""
            if let ifNoneMatch = request.headers[.ifNoneMatch], matches(ifNoneMatch, etag: etag, weak: true) {
                return Responses.empty(status: .notModified, headers: [.eTag: etag])
            }
            if let ifMatch = request.headers[.ifMatch], !matches(ifMatch, etag: etag, weak: false) {
                return Responses.empty(status: .preconditionFailed)
            }
            let facts = try RequestFacts(request: request, context: context, environment: environment)
            return Responses.json(.object(facts.getJSON), headers: [.eTag: etag])
        }
        router.get("/cache") { request, context in
            if request.headers[.ifModifiedSince] != nil || request.headers[.ifNoneMatch] != nil {
                return Responses.empty(status: .notModified)
            }
            let facts = try RequestFacts(request: request, context: context, environment: environment)
            let headers: HTTPFields = [
                .lastModified: HTTPDate.string(Date()),
                .eTag: "\"\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))\"",
            ]
            return Responses.json(.object(facts.getJSON), headers: headers)
        }
        router.get("/cache/:n") { request, context in
            let seconds: Int = try context.parameters.parse("n")
            guard seconds >= 0 else { throw Responses.badRequest("n must not be negative") }
            let facts = try RequestFacts(request: request, context: context, environment: environment)
            return Responses.json(.object(facts.getJSON), headers: [.cacheControl: "public, max-age=\(seconds)"])
        }
        for method in [HTTPRequest.Method.get, .post] {
            router.on("/response-headers", method: method) { request, _ in
                try responseHeaders(QueryOptions(request).pairs)
            }
        }
    }

    /// True when the `If-Match`/`If-None-Match` list contains `etag` (or is `*`).
    static func matches(_ header: String, etag: String, weak: Bool) -> Bool {
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        func opaque(_ tag: String) -> String { weak && tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
        return tags.contains { $0 == "*" || opaque($0) == opaque(etag) }
    }

    /// Sets each pair as a response header and echoes them (with `Content-Type` and the final
    /// `Content-Length`) as JSON, like httpbin.
    private static func responseHeaders(_ pairs: [(name: String, value: String)]) throws -> Response {
        var headers = HTTPFields()
        for pair in pairs {
            guard let name = HTTPFields.Element.Name(pair.name) else { throw Responses.badRequest("invalid header name \(pair.name)") }
            headers.append(HTTPFields.Element(name: name, value: pair.value))
        }
        var echoed = pairs.map { ($0.name, JSONValue.string($0.value)) }
        echoed.append(("Content-Type", "application/json"))
        // The body contains its own length; iterate until the number is stable.
        var length = 0
        var body = Data()
        for _ in 0..<5 {
            body = JSONValue.grouping(echoed + [("Content-Length", .string(String(length)))]).encoded()
            if body.count == length { break }
            length = body.count
        }
        return Responses.data(body, contentType: "application/json", headers: headers)
    }
}
