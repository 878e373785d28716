import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session manager for one HTTP API: the counterpart of `AFHTTPSessionManager`.
///
/// Paths resolve against ``baseURL``; parameters are encoded by ``requestSerializer`` (default
/// `HTTPRequestSerializer`: query string for GET, HEAD and DELETE, form body otherwise); bodies are
/// decoded by ``URLSessionManager/responseSerializer`` (default `JSONResponseSerializer`). Each verb
/// method returns a resumed ``DataTask`` and calls `success` or `failure` on
/// ``URLSessionManager/completionQueue``.
///
/// ```swift
/// let api = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1/"))
/// let (object, response) = try await api.get("users", parameters: ["page": 2])
/// ```
///
/// Its one mutable setting is behind a `Mutex`, which is what makes the `@unchecked Sendable`
/// sound.
open class HTTPSessionManager: URLSessionManager, @unchecked Sendable {
    /// Called with the task and the serialized response object.
    public typealias Success = @Sendable (DataTask, Any?) -> Void
    /// Called with the task (`nil` when the request could not even be made) and the error.
    public typealias Failure = @Sendable (DataTask?, any Error) -> Void

    /// The URL relative paths resolve against; a path without a trailing slash gets one, so
    /// `users` under `https://host/v1` is `https://host/v1/users`. Default `nil`.
    public let baseURL: URL?
    private let serializer: Mutex<HTTPRequestSerializer>

    /// Creates a manager for `baseURL`. With a base URL, ``URLSessionManager/reachabilityManager`` watches its
    /// host and is already monitoring (changes are posted as
    /// ``Foundation/NSNotification/Name/courierReachabilityDidChange``), as in AFNetworking 2.0.
    /// - Parameters:
    ///   - baseURL: The base of relative paths. Default `nil`: paths must be absolute URLs.
    ///   - configuration: The session configuration. Default `.default`.
    public init(baseURL: URL? = nil, configuration: SessionConfiguration = .default) {
        self.baseURL = BaseURL.normalized(baseURL)
        serializer = Mutex(HTTPRequestSerializer())
        super.init(configuration: configuration)
        if baseURL?.host != nil { reachabilityManager = .watching(baseURL: baseURL) }
    }

    /// Turns a method, a path and parameters into a request. Default `HTTPRequestSerializer()`.
    public var requestSerializer: HTTPRequestSerializer {
        get { serializer.withLock { $0 } }
        set { serializer.withLock { $0 = newValue } }
    }

    // MARK: Verbs

    /// `GET` `urlString` with `parameters` in the query string.
    @discardableResult
    public func GET(_ urlString: String, parameters: Any? = nil, success: Success?, failure: Failure?) -> DataTask? {
        dataTask(method: "GET", urlString, parameters: parameters, success: success, failure: failure)
    }

    /// `HEAD` `urlString`; `success` gets only the task.
    @discardableResult
    public func HEAD(_ urlString: String, parameters: Any? = nil, success: (@Sendable (DataTask) -> Void)?, failure: Failure?) -> DataTask? {
        var adapted: Success?
        if let success {
            adapted = { @Sendable (task: DataTask, _: Any?) in success(task) }
        }
        return dataTask(method: "HEAD", urlString, parameters: parameters, success: adapted, failure: failure)
    }

    /// `POST` `urlString` with `parameters` in the body.
    @discardableResult
    public func POST(_ urlString: String, parameters: Any? = nil, success: Success?, failure: Failure?) -> DataTask? {
        dataTask(method: "POST", urlString, parameters: parameters, success: success, failure: failure)
    }

    /// `POST` a `multipart/form-data` body: `parameters` as fields, then the parts `block` appends.
    /// The body streams from the parts (an upload task with upload progress).
    @discardableResult
    public func POST(
        _ urlString: String,
        parameters: Any? = nil,
        constructingBodyWith block: ((any MultipartFormData) throws -> Void)?,
        success: Success?,
        failure: Failure?
    ) -> DataTask? {
        let request: URLRequest
        do {
            request = try requestSerializer.multipartFormRequest(
                method: "POST", urlString: try resolve(urlString), parameters: parameters, constructingBodyWith: block)
        } catch {
            fail(failure, error)
            return nil
        }
        let task = uploadTask(withStreamedRequest: request, completion: Self.completion(success, failure))
        task.resume()
        return task
    }

    /// `PUT` `urlString` with `parameters` in the body.
    @discardableResult
    public func PUT(_ urlString: String, parameters: Any? = nil, success: Success?, failure: Failure?) -> DataTask? {
        dataTask(method: "PUT", urlString, parameters: parameters, success: success, failure: failure)
    }

    /// `PATCH` `urlString` with `parameters` in the body.
    @discardableResult
    public func PATCH(_ urlString: String, parameters: Any? = nil, success: Success?, failure: Failure?) -> DataTask? {
        dataTask(method: "PATCH", urlString, parameters: parameters, success: success, failure: failure)
    }

    /// `DELETE` `urlString` with `parameters` in the query string.
    @discardableResult
    public func DELETE(_ urlString: String, parameters: Any? = nil, success: Success?, failure: Failure?) -> DataTask? {
        dataTask(method: "DELETE", urlString, parameters: parameters, success: success, failure: failure)
    }

    // MARK: Building

    /// The request for `method`, `urlString` (resolved against ``baseURL``) and `parameters`.
    public func request(method: String, _ urlString: String, parameters: Any?) throws -> URLRequest {
        try requestSerializer.request(method: method, urlString: try resolve(urlString), parameters: parameters)
    }

    /// `urlString` resolved against ``baseURL``, as an absolute URL string.
    func resolve(_ urlString: String) throws -> String {
        try BaseURL.resolve(urlString, against: baseURL)
    }

    private func dataTask(method: String, _ urlString: String, parameters: Any?, success: Success?, failure: Failure?) -> DataTask? {
        let request: URLRequest
        do {
            request = try self.request(method: method, urlString, parameters: parameters)
        } catch {
            fail(failure, error)
            return nil
        }
        let task = dataTask(with: request, uploadProgress: nil, downloadProgress: nil, completion: Self.completion(success, failure))
        task.resume()
        return task
    }

    private func fail(_ failure: Failure?, _ error: any Error) {
        guard let failure else { return }
        completionContext.deliver { failure(nil, error) }
    }

    /// A completion that calls `success` or `failure` (it already runs on the completion queue).
    private static func completion(_ success: Success?, _ failure: Failure?) -> DataTask.TaskCompletion {
        { task, _, object, error in
            if let error {
                failure?(task, error)
            } else {
                success?(task, object)
            }
        }
    }
}
