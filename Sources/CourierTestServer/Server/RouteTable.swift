import Hummingbird

/// Assembles the server's router from the route groups.
enum RouteTable {
    static func makeRouter(environment: RouteEnvironment, log: RequestLog) -> Router<ServerContext> {
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware(log: log))
        EchoRoutes.register(on: router, environment: environment)
        BasicAuthRoutes.register(on: router)
        DigestAuthRoutes.register(on: router, environment: environment)
        StatusRoutes.register(on: router)
        RedirectRoutes.register(on: router, environment: environment)
        BytesRoutes.register(on: router)
        TimingRoutes.register(on: router, environment: environment)
        RangeRoutes.register(on: router)
        DownloadRoutes.register(on: router)
        CookieRoutes.register(on: router)
        CachingRoutes.register(on: router, environment: environment)
        FormatRoutes.register(on: router)
        UploadRoutes.register(on: router)
        FlakyRoutes.register(on: router)
        return router
    }
}
