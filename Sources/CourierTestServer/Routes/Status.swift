import Hummingbird

/// `/status/:codes` — a status picked at random from a comma list, optionally weighted (`200:0.9,500:0.1`).
///
/// Codes must be 200...599 (an informational code cannot end an HTTP exchange).
enum StatusRoutes {
    static func register(on router: Router<ServerContext>) {
        for method in EchoRoutes.anyMethod {
            router.on("/status/:codes", method: method) { _, context in
                let choices = try parse(context.parameters.require("codes"))
                return response(for: pick(choices))
            }
        }
    }

    /// Parses `200,201` or `200:3,500:1` into codes with weights.
    static func parse(_ text: String) throws -> [(code: Int, weight: Double)] {
        let choices = try text.split(separator: ",").map { item -> (code: Int, weight: Double) in
            let parts = item.split(separator: ":", maxSplits: 1)
            guard let code = Int(parts[0]), (200...599).contains(code) else {
                throw Responses.badRequest("Invalid status code")
            }
            guard parts.count == 2 else { return (code, 1) }
            guard let weight = Double(parts[1]), weight.isFinite, weight >= 0 else {
                throw Responses.badRequest("Invalid weight")
            }
            return (code, weight)
        }
        guard !choices.isEmpty, choices.contains(where: { $0.weight > 0 }) else {
            throw Responses.badRequest("Invalid status code")
        }
        return choices
    }

    private static func pick(_ choices: [(code: Int, weight: Double)]) -> Int {
        let total = choices.reduce(0) { $0 + $1.weight }
        var target = Double.random(in: 0..<total)
        for choice in choices {
            if target < choice.weight { return choice.code }
            target -= choice.weight
        }
        return choices.last { $0.weight > 0 }?.code ?? 200
    }

    /// The response httpbin gives for `code`, including its extra headers for redirects and auth.
    static func response(for code: Int) -> Response {
        let status = HTTPResponse.Status(code: code)
        switch code {
        case 301, 302, 303, 305, 307, 308:
            return Responses.redirect(to: "/redirect/1", status: status)
        case 401:
            return Responses.empty(status: status, headers: [.wwwAuthenticate: #"Basic realm="Fake Realm""#])
        case 407:
            return Responses.empty(status: status, headers: [.proxyAuthenticate: #"Basic realm="Fake Realm""#])
        case 418:
            return Responses.data(Array("I'm a teapot\n".utf8), contentType: "text/plain", status: status)
        default:
            return Responses.empty(status: status)
        }
    }
}
