import Foundation

/// Why a request could not be built or its parameters encoded.
public enum RequestSerializationError: Error, LocalizedError, CustomStringConvertible, Equatable {
    /// The URL string could not be parsed into a URL.
    case invalidURL(String)
    /// The parameters are of a kind this serializer cannot encode (for example a top-level
    /// array for a query string). The associated value describes what was given.
    case unsupportedParameters(String)
    /// A string could not be represented in the serializer's `stringEncoding`.
    case unrepresentableString(String, encoding: String.Encoding)
    /// The parameters are not a valid JSON object; the associated value explains why.
    case invalidJSONObject(String)
    /// The parameters are not a valid property list; the associated value explains why.
    case invalidPropertyList(String)
    /// Encoding an `Encodable` value failed; the associated value explains why.
    case encodingFailed(String)
    /// Multipart bodies cannot be sent with this HTTP method (GET and HEAD).
    case multipartNotAllowed(method: String)
    /// A file given to a multipart form is missing, unreadable, or not a regular file.
    case unreadableFile(URL, reason: String)
    /// The URL given for a file part is not a file URL.
    case notAFileURL(URL)
    /// A multipart body stream could not be created again because one of its parts is an
    /// `InputStream` that has already been used.
    case bodyStreamNotReplayable
    /// A part of a multipart body produced fewer bytes than announced (a file shrank, a stream
    /// ended early or failed). The associated value explains which part.
    case multipartPartShorterThanAnnounced(String)
    /// The request has no body stream to write to a file.
    case missingBodyStream
    /// Writing a body to a file failed; the associated value explains why.
    case fileWriteFailed(String)

    /// A sentence describing the error.
    public var description: String {
        switch self {
        case .invalidURL(let string):
            return "Courier could not make a URL from \"\(string)\"."
        case .unsupportedParameters(let kind):
            return "Courier cannot encode parameters of this kind: \(kind)."
        case .unrepresentableString(let string, let encoding):
            return "The string \"\(string)\" cannot be represented in the encoding \(encoding)."
        case .invalidJSONObject(let reason):
            return "The parameters are not a valid JSON object: \(reason)."
        case .invalidPropertyList(let reason):
            return "The parameters are not a valid property list: \(reason)."
        case .encodingFailed(let reason):
            return "Encoding the parameters failed: \(reason)."
        case .multipartNotAllowed(let method):
            return "A multipart body cannot be sent with the \(method) method."
        case .unreadableFile(let url, let reason):
            return "The file at \(url.path) cannot be used in a multipart body: \(reason)."
        case .notAFileURL(let url):
            return "\(url) is not a file URL."
        case .bodyStreamNotReplayable:
            return "The multipart body cannot be streamed again: one of its parts is an input stream that was already read."
        case .multipartPartShorterThanAnnounced(let part):
            return "A multipart part produced fewer bytes than its announced length: \(part)."
        case .missingBodyStream:
            return "The request has no body stream."
        case .fileWriteFailed(let reason):
            return "Writing the body to a file failed: \(reason)."
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
