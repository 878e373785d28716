import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequestSerializer {
    /// Creates a `multipart/form-data` request: `parameters` become form fields (flattened with
    /// the query-string rules: `user[name]`, `tags[]`), then `block` appends parts.
    ///
    /// The body is streamed from the parts by a ``MultipartBodyStream`` in `httpBodyStream`, with
    /// an exact `Content-Length`. Do not set `httpBody` or `httpBodyStream` on the result.
    ///
    /// - Throws: ``RequestSerializationError/multipartNotAllowed(method:)`` for GET and HEAD,
    ///   ``RequestSerializationError/invalidURL(_:)``, errors from `block` (a missing file...).
    public func multipartFormRequest(
        method: String,
        urlString: String,
        parameters: Any?,
        constructingBodyWith block: ((any MultipartFormData) throws -> Void)?
    ) throws -> URLRequest {
        let uppercased = method.uppercased()
        guard uppercased != "GET", uppercased != "HEAD" else {
            throw RequestSerializationError.multipartNotAllowed(method: method)
        }
        var request = try makeRequest(method: method, urlString: urlString)
        let (_, encoding) = queryStringSerialization()
        let form = MultipartForm(stringEncoding: encoding)
        if let parameters {
            let value = try QueryStringSerialization.formValue(of: parameters)
            guard case .dictionary = value else {
                throw RequestSerializationError.unsupportedParameters("multipart parameters need a dictionary (or keyed Encodable)")
            }
            for pair in QueryStringPair.pairs(key: nil, value: value) {
                form.appendPart(withFormData: try Self.formFieldData(pair.value, encoding: encoding), name: pair.field)
            }
        }
        try block?(form)
        request = applyingDefaultHeaders(to: request)
        return try form.finalizing(request)
    }

    /// Returns a copy of `request` without its body stream, and writes the stream's bytes to
    /// `fileURL` (created or replaced) in the background, then calls `completionHandler` with
    /// nil or the error. `Content-Length` and the other headers are kept. Use it to upload from a
    /// file, as AFNetworking did for servers that need a file-backed upload. A
    /// ``MultipartBodyStream`` is written from a fresh replacement, so the original request
    /// stays usable; any other stream is consumed and must not be read by the caller afterwards.
    public func request(
        withMultipartFormRequest request: URLRequest,
        writingStreamContentsToFile fileURL: URL,
        completionHandler: (@Sendable ((any Error)?) -> Void)?
    ) -> URLRequest {
        var stripped = request
        stripped.httpBodyStream = nil
        // A multipart body is written from a fresh stream of its own, so the writer shares no
        // stream with the caller; any other stream is handed over as it is.
        let ownStream = (request.httpBodyStream as? MultipartBodyStream).flatMap { try? $0.makeReplacement() }
        let transfer = BodyStreamTransfer(stream: ownStream ?? request.httpBodyStream)
        DispatchQueue.global(qos: .utility).async {
            do {
                guard let stream = transfer.stream else { throw RequestSerializationError.missingBodyStream }
                try BodyStreamFileWriter.write(stream, to: fileURL)
                completionHandler?(nil)
            } catch {
                completionHandler?(error)
            }
        }
        return stripped
    }

    /// The bytes of a form field value in `encoding` (null: empty; data: as is).
    static func formFieldData(_ value: FormValue?, encoding: String.Encoding) throws -> Data {
        switch value {
        case .scalar(let text)?:
            guard let data = text.data(using: encoding) else {
                throw RequestSerializationError.unrepresentableString(text, encoding: encoding)
            }
            return data
        case .data(let data)?:
            return data
        case nil, .null?, .dictionary?, .array?, .set?:
            return Data()
        }
    }
}

/// Hands a request's body stream to the background writer.
///
/// `@unchecked Sendable`: `InputStream` is not `Sendable`. Ownership moves to the writer: for a
/// multipart body it is a fresh stream nobody else holds; for any other stream, the request
/// returned to the caller no longer references it, and the original request's stream must not
/// be read by the caller (as with AFNetworking).
private struct BodyStreamTransfer: @unchecked Sendable {
    let stream: InputStream?
}
