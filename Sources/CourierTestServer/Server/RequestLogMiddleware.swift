import Hummingbird

/// Records every request in a ``RequestLog`` before it is routed, and when its handler returned the response.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    let log: RequestLog

    func handle(
        _ request: Request,
        context: ServerContext,
        next: (Request, ServerContext) async throws -> Response
    ) async throws -> Response {
        var headers: [RecordedRequest.Header] = []
        // HTTP/1.1's Host header arrives as the authority, as HTTP/2's :authority does.
        if let authority = request.head.authority {
            headers.append(.init(name: "host", value: authority))
        }
        for field in request.headers {
            headers.append(.init(name: field.name.canonicalName, value: field.value))
        }
        let number = log.append(RecordedRequest(method: request.method.rawValue, target: request.target, headers: headers))
        defer { log.answered(number) }
        return try await next(request, context)
    }
}
