import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an archived ``URLConnectionOperation`` keeps (seed 000's coding caveats): the request,
/// the state (executing or paused become ready), the response head, the error, the body received,
/// and for a download to a file the file and how to resume it. Blocks and streams are not kept.
public struct OperationArchive: Codable, Sendable, Equatable {
    /// A `URLRequest` in codable form.
    public struct Request: Codable, Sendable, Equatable {
        /// The URL.
        public var url: URL?
        /// The method; `nil` means GET.
        public var method: String?
        /// The header fields.
        public var headers: [String: String]
        /// The body, when it is in memory (a body stream is not archived).
        public var body: Data?
        /// The timeout, in seconds.
        public var timeoutInterval: TimeInterval

        /// `request` in codable form. A body stream is not kept (read it into `body` first).
        public init(_ request: URLRequest) {
            url = request.url
            method = request.httpMethod
            headers = request.allHTTPHeaderFields ?? [:]
            body = request.httpBody
            timeoutInterval = request.timeoutInterval
        }

        /// The request again. An archive without a URL gives `file:///`, which no transport sends: such an
        /// operation fails with `URLError(.unsupportedURL)` when started.
        public func makeRequest() -> URLRequest {
            var request = URLRequest(url: url ?? URL(fileURLWithPath: "/"), timeoutInterval: timeoutInterval)
            request.httpMethod = method
            request.allHTTPHeaderFields = headers
            request.httpBody = body
            return request
        }
    }

    /// A response head in codable form.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code.
        public var statusCode: Int
        /// The header fields.
        public var headers: [String: String]
        /// The response URL.
        public var url: URL?
        /// The content coding the body was decoded from (the `Content-Encoding` the server sent), or `nil` when the
        /// body is the bytes as sent: a restored operation does not continue decoded bytes by `Range`. Default `nil`.
        public var decodedContentCoding: String?

        /// `response`'s head in codable form: its status, URL, decoded content coding and header fields.
        public init(_ response: HTTPURLResponse) {
            statusCode = response.statusCode
            url = response.url
            decodedContentCoding = response.decodedContentCoding
            var fields: [String: String] = [:]
            for (key, value) in response.allHeaderFields {
                if let key = key as? String, let value = value as? String { fields[key] = value }
            }
            headers = fields
        }

        func makeResponse(fallback: URL?) -> HTTPURLResponse? {
            guard let url = url ?? fallback else { return nil }
            if let decodedContentCoding {
                return DecodedResponseHead(
                    url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers, decodedContentCoding: decodedContentCoding
                )
            }
            return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers)
        }
    }

    /// An error in codable form.
    public struct ErrorRecord: Codable, Sendable, Equatable {
        /// The error's domain.
        public var domain: String
        /// The error's code.
        public var code: Int
        /// Its description: the localized one, or for a Swift error that has none of its own but describes itself
        /// (`CustomStringConvertible`), that text.
        public var description: String

        /// `error` in codable form: its domain, code and description.
        public init(_ error: any Error) {
            let bridged = error as NSError
            domain = bridged.domain
            code = bridged.code
            // Foundation's text for a Swift error without a localized description says only "The operation could not
            // be completed"; the error's own words say what happened.
            // (A cast of the error itself always succeeds, through NSError; its type's conformance is what counts.)
            if !(error is LocalizedError), !(error is URLError), !(type(of: error) is NSError.Type),
               type(of: error) is any CustomStringConvertible.Type {
                description = String(describing: error)
            } else {
                description = bridged.localizedDescription
            }
        }

        /// A `URLError` for the URL error domain, an `NSError` otherwise.
        func makeError() -> any Error {
            if domain == NSURLErrorDomain, let urlCode = URLError.Code(rawValue: code) {
                return URLError(urlCode, userInfo: [NSLocalizedDescriptionKey: description])
            }
            return NSError(domain: domain, code: code, userInfo: [NSLocalizedDescriptionKey: description])
        }
    }

    /// The archive format; readers reject newer ones.
    public var version = 1
    /// The request.
    public var request: Request
    /// `.ready` or `.finished`.
    public var state: OperationState
    /// The last response head.
    public var response: Response?
    /// The error.
    public var error: ErrorRecord?
    /// The body of a finished in-memory operation.
    public var responseData: Data?
    /// The bytes of the body received so far.
    public var totalBytesRead: Int64
    /// The bytes kept in memory by a paused in-memory download.
    public var partialData: Data?
    /// The file a download writes to.
    public var outputFilePath: String?
    /// How a download to a file resumes (offset and validators), when it was interrupted.
    public var resumption: DownloadResumption?
}
