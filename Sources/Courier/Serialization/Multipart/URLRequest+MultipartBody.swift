import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// This request with a fresh ``MultipartBodyStream`` producing the same body from the start,
    /// for resending it after a 307/308 redirect or an authentication challenge. A request whose
    /// body stream is not a multipart body is returned unchanged.
    ///
    /// - Throws: ``RequestSerializationError/bodyStreamNotReplayable`` when the form has an
    ///   `InputStream` part that was already read.
    public func withFreshMultipartBodyStream() throws -> URLRequest {
        guard let stream = httpBodyStream as? MultipartBodyStream else { return self }
        var request = self
        request.httpBodyStream = try stream.makeReplacement()
        return request
    }
}
