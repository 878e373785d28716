import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a response was rejected or its body could not be decoded.
///
/// Every case carries the response (when there was one) and the body data, so a failure can be
/// inspected or logged without keeping the exchange around.
public enum ResponseSerializationError: Error, LocalizedError, CustomStringConvertible {
    /// The status code is not in the serializer's `acceptableStatusCodes`.
    case unacceptableStatusCode(Int, response: HTTPURLResponse, data: Data?)
    /// The body's MIME type (`nil` when the response has no `Content-Type`) is not in the
    /// serializer's `acceptableContentTypes`. Only raised when there is a body.
    case unacceptableContentType(String?, acceptable: Set<String>, response: HTTPURLResponse, data: Data?)
    /// The body could not be decoded as text in the given encoding: its bytes are not valid in it.
    case undecodableText(encoding: String.Encoding, response: URLResponse?, data: Data?)
    /// The response's `charset` (`name`, as written) is not one Courier can decode: not in the IANA registry, or an
    /// encoding Foundation has no converter for on this platform (see `CharsetDecoding`). The body was not
    /// decoded; there is no fallback to another encoding.
    case unsupportedCharset(name: String, response: URLResponse?, data: Data?)
    /// The body is not valid JSON; `reason` comes from the JSON parser.
    case invalidJSON(reason: String, response: URLResponse?, data: Data?)
    /// The body is not well-formed XML; `reason` comes from the XML parser.
    case invalidXML(reason: String, response: URLResponse?, data: Data?)
    /// The body is not a property list; `reason` comes from the property list parser.
    case invalidPropertyList(reason: String, response: URLResponse?, data: Data?)
    /// The body is not an image of a known format, or it is corrupt or truncated.
    case invalidImage(reason: String, response: URLResponse?, data: Data?)
    /// The body could not be decoded into the requested `Decodable` type.
    case decodingFailed(reason: String, response: URLResponse?, data: Data?)

    /// The response the error is about, if any.
    public var response: URLResponse? {
        switch self {
        case .unacceptableStatusCode(_, let response, _), .unacceptableContentType(_, _, let response, _):
            return response
        case .undecodableText(_, let response, _), .unsupportedCharset(_, let response, _),
             .invalidJSON(_, let response, _), .invalidXML(_, let response, _), .invalidPropertyList(_, let response, _),
             .invalidImage(_, let response, _), .decodingFailed(_, let response, _):
            return response
        }
    }

    /// The body data the error is about, if any.
    public var data: Data? {
        switch self {
        case .unacceptableStatusCode(_, _, let data), .unacceptableContentType(_, _, _, let data),
             .undecodableText(_, _, let data), .unsupportedCharset(_, _, let data), .invalidJSON(_, _, let data),
             .invalidXML(_, _, let data), .invalidPropertyList(_, _, let data), .invalidImage(_, _, let data),
             .decodingFailed(_, _, let data):
            return data
        }
    }

    /// A sentence describing the error.
    public var description: String {
        switch self {
        case .unacceptableStatusCode(let code, let response, _):
            let reason = HTTPURLResponse.localizedString(forStatusCode: code)
            return "Request failed: \(reason) (\(code)) for \(response.url?.absoluteString ?? "an unknown URL")."
        case .unacceptableContentType(let type, let acceptable, _, _):
            let list = acceptable.sorted().joined(separator: ", ")
            return "Request failed: unacceptable content type \(type ?? "(none)"); acceptable: \(list)."
        case .undecodableText(let encoding, _, _):
            let name = CharsetDecoding.charsetName(for: encoding).map { " (\($0))" } ?? ""
            return "The response body cannot be decoded as text in the encoding \(encoding)\(name): its bytes are not valid in it."
        case .unsupportedCharset(let name, _, _):
            return "The response's charset \"\(name)\" is not one Courier can decode (unknown to the IANA registry or without a decoder in Foundation here)."
        case .invalidJSON(let reason, _, _):
            return "The response body is not valid JSON: \(reason)."
        case .invalidXML(let reason, _, _):
            return "The response body is not well-formed XML: \(reason)."
        case .invalidPropertyList(let reason, _, _):
            return "The response body is not a property list: \(reason)."
        case .invalidImage(let reason, _, _):
            return "The response body is not a usable image: \(reason)."
        case .decodingFailed(let reason, _, _):
            return "The response body could not be decoded: \(reason)."
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
