import Foundation
import Hummingbird
import NIOCore

/// `/get`, `/post`, `/put`, `/patch`, `/delete`, `/anything[/*]`, `/headers`, `/user-agent`, `/ip`, `/echo`.
enum EchoRoutes {
    /// Every method `/anything` answers (HEAD is derived from GET).
    static let anyMethod: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .options]

    static func register(on router: Router<ServerContext>, environment: RouteEnvironment) {
        router.get("/get") { request, context in
            Responses.json(.object(try RequestFacts(request: request, context: context, environment: environment).getJSON))
        }
        for (path, method) in [("/post", HTTPRequest.Method.post), ("/put", .put), ("/patch", .patch), ("/delete", .delete)] {
            router.on(RouterPath(path), method: method) { request, context in
                try await echo(request, context: context, environment: environment, includeMethod: false)
            }
        }
        for path in ["/anything", "/anything/**"] {
            for method in anyMethod {
                router.on(RouterPath(path), method: method) { request, context in
                    try await echo(request, context: context, environment: environment, includeMethod: true)
                }
            }
        }
        router.get("/headers") { request, _ in
            Responses.json(["headers": RequestFacts.headersJSON(request)])
        }
        router.get("/user-agent") { request, _ in
            Responses.json(["user-agent": request.headers[.userAgent].map(JSONValue.string) ?? .null])
        }
        router.get("/ip") { _, context in
            Responses.json(["origin": .string(context.peerAddress)])
        }
        for method in [HTTPRequest.Method.post, .put, .patch] {
            router.on("/echo", method: method) { request, _ in
                streamBack(request)
            }
        }
    }

    /// The httpbin echo of a request with a body: args, data, files, form, headers, json, origin,
    /// url (and method for `/anything`), plus `body_size` and `body_sha256` of the raw body.
    static func echo(
        _ request: Request,
        context: ServerContext,
        environment: RouteEnvironment,
        includeMethod: Bool
    ) async throws -> Response {
        let facts = try RequestFacts(request: request, context: context, environment: environment)
        var result = facts.getJSON
        let content = try await RequestContent.read(request)
        result["data"] = .string(content.data)
        result["form"] = FormDecoding.json(content.form)
        result["files"] = content.files
        result["json"] = content.json
        result["body_size"] = .integer(content.bodySize)
        result["body_sha256"] = .string(content.bodySHA256)
        if includeMethod {
            result["method"] = .string(facts.method)
        }
        return Responses.json(.object(result))
    }

    /// Answers with the request body streamed straight back, same type, same length.
    static func streamBack(_ request: Request) -> Response {
        let length = request.headers[.contentLength].flatMap(Int.init)
        let headers: HTTPFields = [.contentType: request.headers[.contentType] ?? "application/octet-stream"]
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody(contentLength: length) { writer in
                for try await chunk in request.body {
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            }
        )
    }
}
