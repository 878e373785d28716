import Foundation
import Hummingbird
import NIOCore

/// Endpoints that take their time or fail on purpose: `/drip`, `/events`, `/delay/:n`, `/slow-body/:n`, `/abort/:n`.
enum TimingRoutes {
    /// The longest wait any endpoint accepts, in seconds.
    static let maxDelay = 60.0

    /// Thrown inside a body writer to cut the connection mid-body.
    struct AbortConnection: Error {}

    static func register(on router: Router<ServerContext>, environment: RouteEnvironment) {
        router.get("/drip") { request, _ in
            let options = try QueryOptions(request)
            let duration = try options.seconds("duration", default: 2, in: 0...maxDelay)
            let count = try options.int("numbytes", default: 10, in: 1...(10 * 1024 * 1024))
            let delay = try options.seconds("delay", default: 0, in: 0...maxDelay)
            let code = try options.int("code", default: 200, in: 200...599)
            let pause = duration / Double(count)
            try await sleep(seconds: delay)
            return Response(
                status: .init(code: code),
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: count) { writer in
                    let star = ByteBuffer(string: "*")
                    for _ in 0..<count {
                        try await writer.write(star)
                        try await sleep(seconds: pause)
                    }
                    try await writer.finish(nil)
                }
            )
        }

        // Server-Sent Events: `count` events named `tick`, one every `interval` seconds, each with an id and a JSON
        // line of data, then the stream ends (chunked: its length is not known in advance).
        router.get("/events") { request, _ in
            let options = try QueryOptions(request)
            let count = try options.int("count", default: 3, in: 1...1_000)
            let interval = try options.seconds("interval", default: 0.5, in: 0...maxDelay)
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    for number in 1...count {
                        try await writer.write(ByteBuffer(string: "id: \(number)\nevent: tick\ndata: {\"n\":\(number)}\n\n"))
                        if number < count { try await sleep(seconds: interval) }
                    }
                    try await writer.finish(nil)
                }
            )
        }

        for method in EchoRoutes.anyMethod {
            router.on("/delay/:n", method: method) { request, context in
                let seconds: Double = try context.parameters.parse("n")
                guard seconds.isFinite, seconds >= 0 else { throw Responses.badRequest("n must be a number of seconds") }
                try await sleep(seconds: min(seconds, maxDelay))
                return try await EchoRoutes.echo(request, context: context, environment: environment, includeMethod: false)
            }
        }

        router.get("/abort/:n") { request, context in
            let sent = try BytesRoutes.lengthParameter(context)
            let total = try QueryOptions(request).int("total", default: sent * 2 + 1, in: (sent + 1)...BytesRoutes.maxLength)
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: total) { writer in
                    var position = 0
                    let content = AlphabetContent()
                    while position < sent {
                        let buffer = content.slice(at: position, maxLength: sent - position)
                        try await writer.write(buffer)
                        position += buffer.readableBytes
                    }
                    // Give the bytes time to leave before the connection is torn down.
                    try await Task.sleep(for: .milliseconds(50))
                    throw AbortConnection()
                }
            )
        }

        router.get("/slow-body/:n") { request, context in
            let length = try BytesRoutes.lengthParameter(context)
            let delay = try QueryOptions(request).seconds("delay", default: 10, in: 0...maxDelay)
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: length) { writer in
                    try await sleep(seconds: delay)
                    try await AlphabetContent().write(0..<length, to: &writer)
                }
            )
        }
    }
}
