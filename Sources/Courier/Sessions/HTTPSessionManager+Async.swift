import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// async/await verbs: `try await manager.get("users", parameters: [...])` returns the serialized
/// object and the response. A status or body the response serializer rejects throws its
/// `ResponseSerializationError`; cancelling the calling Swift task cancels the request.
extension HTTPSessionManager {
    /// `GET`, decoded by ``URLSessionManager/responseSerializer``.
    public func get(_ urlString: String, parameters: Any? = nil) async throws -> (Any?, HTTPURLResponse) {
        try await object(method: "GET", urlString, parameters: parameters)
    }

    /// `HEAD`: the response only.
    public func head(_ urlString: String, parameters: Any? = nil) async throws -> HTTPURLResponse {
        try await object(method: "HEAD", urlString, parameters: parameters).1
    }

    /// `POST`, decoded by ``URLSessionManager/responseSerializer``.
    public func post(_ urlString: String, parameters: Any? = nil) async throws -> (Any?, HTTPURLResponse) {
        try await object(method: "POST", urlString, parameters: parameters)
    }

    /// `POST` of a `multipart/form-data` body, decoded by ``URLSessionManager/responseSerializer``.
    public func post(
        _ urlString: String,
        parameters: Any? = nil,
        constructingBodyWith block: ((any MultipartFormData) throws -> Void)?
    ) async throws -> (Any?, HTTPURLResponse) {
        let request = try requestSerializer.multipartFormRequest(
            method: "POST", urlString: try resolve(urlString), parameters: parameters, constructingBodyWith: block)
        let task = uploadTask(withStreamedRequest: request, completion: nil)
        return try await serialized(task, with: responseSerializer)
    }

    /// `PUT`, decoded by ``URLSessionManager/responseSerializer``.
    public func put(_ urlString: String, parameters: Any? = nil) async throws -> (Any?, HTTPURLResponse) {
        try await object(method: "PUT", urlString, parameters: parameters)
    }

    /// `PATCH`, decoded by ``URLSessionManager/responseSerializer``.
    public func patch(_ urlString: String, parameters: Any? = nil) async throws -> (Any?, HTTPURLResponse) {
        try await object(method: "PATCH", urlString, parameters: parameters)
    }

    /// `DELETE`, decoded by ``URLSessionManager/responseSerializer``.
    public func delete(_ urlString: String, parameters: Any? = nil) async throws -> (Any?, HTTPURLResponse) {
        try await object(method: "DELETE", urlString, parameters: parameters)
    }

    /// `GET`, decoded as `Value` from JSON.
    /// - Parameters:
    ///   - urlString: The path, resolved against ``HTTPSessionManager/baseURL``, or an absolute URL.
    ///   - parameters: Encoded by ``HTTPSessionManager/requestSerializer``. Default `nil`.
    ///   - type: The type to decode.
    ///   - decoder: The decoder. Default `JSONDecoder()`.
    public func get<Value: Decodable>(
        _ urlString: String, parameters: Any? = nil, as type: Value.Type, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> (Value, HTTPURLResponse) {
        try await decoded(method: "GET", urlString, parameters: parameters, decoder: decoder)
    }

    /// `POST`, decoded as `Value` from JSON.
    /// - Parameters:
    ///   - urlString: The path, resolved against ``HTTPSessionManager/baseURL``, or an absolute URL.
    ///   - parameters: Encoded by ``HTTPSessionManager/requestSerializer``. Default `nil`.
    ///   - type: The type to decode.
    ///   - decoder: The decoder. Default `JSONDecoder()`.
    public func post<Value: Decodable>(
        _ urlString: String, parameters: Any? = nil, as type: Value.Type, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> (Value, HTTPURLResponse) {
        try await decoded(method: "POST", urlString, parameters: parameters, decoder: decoder)
    }

    /// `PUT`, decoded as `Value` from JSON.
    /// - Parameters:
    ///   - urlString: The path, resolved against ``HTTPSessionManager/baseURL``, or an absolute URL.
    ///   - parameters: Encoded by ``HTTPSessionManager/requestSerializer``. Default `nil`.
    ///   - type: The type to decode.
    ///   - decoder: The decoder. Default `JSONDecoder()`.
    public func put<Value: Decodable>(
        _ urlString: String, parameters: Any? = nil, as type: Value.Type, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> (Value, HTTPURLResponse) {
        try await decoded(method: "PUT", urlString, parameters: parameters, decoder: decoder)
    }

    /// `PATCH`, decoded as `Value` from JSON.
    /// - Parameters:
    ///   - urlString: The path, resolved against ``HTTPSessionManager/baseURL``, or an absolute URL.
    ///   - parameters: Encoded by ``HTTPSessionManager/requestSerializer``. Default `nil`.
    ///   - type: The type to decode.
    ///   - decoder: The decoder. Default `JSONDecoder()`.
    public func patch<Value: Decodable>(
        _ urlString: String, parameters: Any? = nil, as type: Value.Type, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> (Value, HTTPURLResponse) {
        try await decoded(method: "PATCH", urlString, parameters: parameters, decoder: decoder)
    }

    /// `DELETE`, decoded as `Value` from JSON.
    /// - Parameters:
    ///   - urlString: The path, resolved against ``HTTPSessionManager/baseURL``, or an absolute URL.
    ///   - parameters: Encoded by ``HTTPSessionManager/requestSerializer``. Default `nil`.
    ///   - type: The type to decode.
    ///   - decoder: The decoder. Default `JSONDecoder()`.
    public func delete<Value: Decodable>(
        _ urlString: String, parameters: Any? = nil, as type: Value.Type, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> (Value, HTTPURLResponse) {
        try await decoded(method: "DELETE", urlString, parameters: parameters, decoder: decoder)
    }

    /// Downloads `urlString` (resolved against ``baseURL``, `parameters` in the query string) to
    /// `destination` and returns it.
    public func download(_ urlString: String, parameters: Any? = nil, to destination: URL) async throws -> URL {
        try await download(request(method: "GET", urlString, parameters: parameters), to: destination)
    }

    // MARK: Plumbing

    private func object(method: String, _ urlString: String, parameters: Any?) async throws -> (Any?, HTTPURLResponse) {
        let task = dataTask(with: try request(method: method, urlString, parameters: parameters),
                            uploadProgress: nil, downloadProgress: nil, completion: nil)
        return try await serialized(task, with: responseSerializer)
    }

    private func decoded<Value: Decodable>(method: String, _ urlString: String, parameters: Any?,
                                           decoder: JSONDecoder) async throws -> (Value, HTTPURLResponse) {
        let task = dataTask(with: try request(method: method, urlString, parameters: parameters),
                            uploadProgress: nil, downloadProgress: nil, completion: nil)
        let data = try await task.value
        let response = try await task.completedResponse
        return (try DecodableResponseSerializer<Value>(decoder: decoder).decodedObject(for: response, data: data), response)
    }

    /// The task's body as the serializer makes it: the object the task already made (in the task, off the
    /// completion queue) when it can be shared.
    private func serialized(_ task: DataTask, with serializer: any URLResponseSerialization) async throws -> (Any?, HTTPURLResponse) {
        let response = try await task.completedResponse
        return (try task.serializedObject(with: serializer, response: response), response)
    }
}
