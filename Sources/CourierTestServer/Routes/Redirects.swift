import Hummingbird

/// `/redirect/:n`, `/relative-redirect/:n`, `/absolute-redirect/:n`, `/redirect-to`.
enum RedirectRoutes {
    /// The most hops one redirect chain may have.
    static let maxHops = 1000

    static func register(on router: Router<ServerContext>, environment: RouteEnvironment) {
        router.get("/redirect/:n") { request, context in
            let hops = try hopCount(context)
            let absolute = try QueryOptions(request).string("absolute")?.lowercased() == "true"
            return absolute
                ? absoluteRedirect(hops, request: request, environment: environment)
                : relativeRedirect(hops, prefix: "/relative-redirect")
        }
        router.get("/relative-redirect/:n") { _, context in
            relativeRedirect(try hopCount(context), prefix: "/relative-redirect")
        }
        router.get("/absolute-redirect/:n") { request, context in
            absoluteRedirect(try hopCount(context), request: request, environment: environment)
        }
        for method in EchoRoutes.anyMethod {
            router.on("/redirect-to", method: method) { request, _ in
                let options = try QueryOptions(request)
                guard let url = options.string("url"), !url.isEmpty else {
                    throw Responses.badRequest("url is required")
                }
                let code = try options.int("status_code", default: 302, in: 100...999)
                return Responses.redirect(to: url, status: .init(code: (300...399).contains(code) ? code : 302))
            }
        }
    }

    private static func hopCount(_ context: ServerContext) throws -> Int {
        let hops: Int = try context.parameters.parse("n")
        guard (1...maxHops).contains(hops) else { throw Responses.badRequest("n must be between 1 and \(maxHops)") }
        return hops
    }

    private static func relativeRedirect(_ hops: Int, prefix: String) -> Response {
        Responses.redirect(to: hops == 1 ? "/get" : "\(prefix)/\(hops - 1)")
    }

    private static func absoluteRedirect(_ hops: Int, request: Request, environment: RouteEnvironment) -> Response {
        let target = hops == 1 ? "/get" : "/absolute-redirect/\(hops - 1)"
        return Responses.redirect(to: environment.absoluteURL(target, request: request))
    }
}
