import Hummingbird

/// `/json`, `/xml`, `/html`, `/image[/png|jpeg|gif|svg]`, `/gzip`, `/deflate`, `/encoding/utf8`.
enum FormatRoutes {
    static func register(on router: Router<ServerContext>) {
        router.get("/json") { _, _ in Responses.json(SampleDocuments.slideshowJSON) }
        router.get("/xml") { _, _ in Responses.data(Array(SampleDocuments.slideshowXML.utf8), contentType: "application/xml") }
        router.get("/html") { _, _ in Responses.data(Array(SampleDocuments.html.utf8), contentType: "text/html; charset=utf-8") }
        router.get("/encoding/utf8") { _, _ in
            Responses.data(Array(SampleDocuments.utf8Sample.utf8), contentType: "text/html; charset=utf-8")
        }
        let images: [(String, String, [UInt8])] = [
            ("png", "image/png", SampleImages.png),
            ("jpeg", "image/jpeg", SampleImages.jpeg),
            ("gif", "image/gif", SampleImages.gif),
            ("svg", "image/svg+xml", SampleImages.svg),
        ]
        for (name, type, bytes) in images {
            router.get(RouterPath("/image/\(name)")) { _, _ in Responses.data(bytes, contentType: type) }
        }
        router.get("/image") { request, _ in
            let accept = request.headers[.accept] ?? "image/png"
            guard let match = images.first(where: { accept.contains($0.1) }) ?? (accept.contains("image/*") || accept.contains("*/*") ? images[0] : nil) else {
                return Responses.json(["message": "Client did not request a supported media type.", "accept": .string(accept)], status: .notAcceptable)
            }
            return Responses.data(match.2, contentType: match.1)
        }
        router.get("/gzip") { request, context in
            try encoded(request, context: context, flag: "gzipped", coding: "gzip", encode: StoredDeflate.gzip)
        }
        router.get("/deflate") { request, context in
            try encoded(request, context: context, flag: "deflated", coding: "deflate", encode: StoredDeflate.zlib)
        }
    }

    /// httpbin's compressed echo: `{flag: true, headers, method, origin}` with `Content-Encoding: coding`.
    private static func encoded(
        _ request: Request,
        context: ServerContext,
        flag: String,
        coding: String,
        encode: ([UInt8]) -> [UInt8]
    ) throws -> Response {
        let json: JSONValue = [
            flag: true,
            "headers": RequestFacts.headersJSON(request),
            "method": .string(request.method.rawValue),
            "origin": .string(context.peerAddress),
        ]
        return Responses.data(encode(Array(json.encoded())), contentType: "application/json", headers: [.contentEncoding: coding])
    }
}
