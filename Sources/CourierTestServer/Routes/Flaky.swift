import Hummingbird
import NIOConcurrencyHelpers

/// `/flaky/:failures/:key` — the first `failures` requests for `key` fail with `503 Service Unavailable`, the ones
/// after succeed with `{"attempt": n}` (n counts from 1). `?status=` picks another failure status (400…599), and
/// `?retry_after=` adds a `Retry-After` field with that value to the failures. Keys
/// are counted for the life of the process, so each test uses a key of its own.
enum FlakyRoutes {
    private static let attempts = NIOLockedValueBox<[String: Int]>([:])

    static func register(on router: Router<ServerContext>) {
        for method in EchoRoutes.anyMethod {
            router.on("/flaky/:failures/:key", method: method) { request, context in
                guard let failures = Int(try context.parameters.require("failures")), (0...1000).contains(failures) else {
                    throw Responses.badRequest("Invalid failure count")
                }
                let key = try context.parameters.require("key")
                let attempt = attempts.withLockedValue { attempts in
                    attempts[key, default: 0] += 1
                    return attempts[key, default: 0]
                }
                guard attempt > failures else {
                    let status = request.uri.queryParameters.get("status", as: Int.self) ?? 503
                    guard (400...599).contains(status) else { throw Responses.badRequest("Invalid status") }
                    var headers: HTTPFields = [:]
                    if let retryAfter = request.uri.queryParameters.get("retry_after") {
                        headers[.retryAfter] = String(retryAfter)
                    }
                    return Responses.empty(status: HTTPResponse.Status(code: status), headers: headers)
                }
                return Responses.json(.object(["attempt": .int(Int64(attempt))]))
            }
        }
    }
}
