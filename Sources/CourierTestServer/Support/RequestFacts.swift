import Hummingbird

/// The request facts httpbin echoes in most responses: `args`, `headers`, `origin`, `url`.
struct RequestFacts {
    /// The query items in order.
    let query: [(name: String, value: String)]
    /// `headers` in httpbin's shape: Title-Cased names, repeated fields joined.
    let headers: JSONValue
    let origin: String
    let url: String
    let method: String

    init(request: Request, context: ServerContext, environment: RouteEnvironment) throws {
        self.query = try QueryOptions(request).pairs
        self.headers = Self.headersJSON(request)
        self.origin = context.peerAddress
        self.url = environment.absoluteURL(request.target, request: request)
        self.method = request.method.rawValue
    }

    /// `args` as httpbin shapes it.
    var args: JSONValue { FormDecoding.json(query) }

    /// `{"args", "headers", "origin", "url"}` — the body of `/get`.
    var getJSON: [String: JSONValue] {
        ["args": args, "headers": headers, "origin": .string(origin), "url": .string(url)]
    }

    /// The request's headers in httpbin's shape (including `Host` for HTTP/2 requests).
    static func headersJSON(_ request: Request) -> JSONValue {
        var values: [String: [String]] = [:]
        func add(_ name: String, _ value: String) {
            values[titleCase(name), default: []].append(value)
        }
        if let authority = request.head.authority {
            add("host", authority)
        }
        for field in request.headers {
            add(field.name.canonicalName, field.value)
        }
        // HTTP/2 splits `Cookie` into one field per cookie; it is rejoined as HTTP/1.1 sends it.
        return .object(
            Dictionary(uniqueKeysWithValues: values.map { key, list in
                (key, .string(list.joined(separator: key == "Cookie" ? "; " : ",")))
            })
        )
    }

    /// `content-type` → `Content-Type`.
    static func titleCase(_ name: String) -> String {
        name.split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }
            .joined(separator: "-")
    }
}
