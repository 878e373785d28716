import Hummingbird

/// Assembles the server's router from the route groups.
enum RouteTable {
    static func makeRouter(environment: RouteEnvironment, log: RequestLog) -> Router<ServerContext> {
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware(log: log))
        EchoRoutes.register(on: router, environment: environment)
        return router
    }
}
