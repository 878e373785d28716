import Foundation
import Hummingbird
import NIOCore

/// Helpers that build the server's responses.
enum Responses {
    /// A JSON response with `Content-Type: application/json`.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        data(value.encoded(), contentType: "application/json", status: status, headers: headers)
    }

    /// A response with a fixed body.
    static func data(
        _ bytes: some Collection<UInt8>,
        contentType: String,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A response without a body and without `Content-Length` (for 304 and similar).
    static func empty(status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var response = Response(status: status, headers: headers)
        if status == .notModified || status.code == 204 {
            response.headers[.contentLength] = nil
        }
        return response
    }

    /// A 302 (or other) redirect to `location`.
    static func redirect(to location: String, status: HTTPResponse.Status = .found) -> Response {
        var response = Response(status: status, headers: [.location: location])
        response.headers[.contentLength] = "0"
        return response
    }

    /// A `400 Bad Request` error carrying a JSON message `{"error":{"message":...}}`.
    static func badRequest(_ message: String) -> HTTPError {
        HTTPError(.badRequest, message: message)
    }
}

extension Parameters {
    /// A path parameter parsed as `T`, or a 400 error naming the parameter.
    func parse<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let text = get(name), let value = T(text) else {
            throw Responses.badRequest("invalid path parameter '\(name)'")
        }
        return value
    }
}
