import Hummingbird

/// `/upload` — streamed `multipart/form-data` in constant memory, answering each part's name,
/// filename, content type, size and SHA-256.
enum UploadRoutes {
    static func register(on router: Router<ServerContext>) {
        for method in [HTTPRequest.Method.post, .put] {
            router.on("/upload", method: method) { request, _ in
                guard let boundary = MultipartSummary.boundary(contentType: request.headers[.contentType]) else {
                    throw HTTPError(.unsupportedMediaType, message: "expected multipart/form-data with a boundary")
                }
                let summary = try await MultipartSummary.read(request.body, boundary: boundary)
                return Responses.json([
                    "parts": .array(summary.parts.map(\.json)),
                    "body_size": .integer(summary.body.size),
                    "body_sha256": .string(summary.body.hexDigest()),
                ])
            }
        }
    }
}
