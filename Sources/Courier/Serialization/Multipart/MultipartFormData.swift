import Foundation

/// What the `constructingBodyWith` block of
/// ``HTTPRequestSerializer/multipartFormRequest(method:urlString:parameters:constructingBodyWith:)``
/// appends parts with. The counterpart of `AFMultipartFormData`.
///
/// Nothing is read while parts are appended: files and streams are read while the body is sent.
public protocol MultipartFormData: AnyObject {
    /// Appends a file part; the file name is the URL's last path component and the MIME type is
    /// inferred from its extension (`application/octet-stream` when unknown).
    ///
    /// - Throws: ``RequestSerializationError/notAFileURL(_:)`` or
    ///   ``RequestSerializationError/unreadableFile(_:reason:)`` when the file is missing,
    ///   unreadable or not a regular file.
    func appendPart(withFileURL fileURL: URL, name: String) throws

    /// Appends a file part with an explicit file name and MIME type.
    ///
    /// - Throws: as ``appendPart(withFileURL:name:)``.
    func appendPart(withFileURL fileURL: URL, name: String, fileName: String, mimeType: String) throws

    /// Appends a part whose body is read from `inputStream`, which must produce exactly `length`
    /// bytes. The stream is opened and read while the body is sent; it can be read only once, so
    /// a form with a stream part cannot produce a second body stream (see
    /// ``MultipartBodyStream/makeReplacement()``).
    func appendPart(with inputStream: InputStream, name: String, fileName: String, length: Int64, mimeType: String)

    /// Appends a file part whose content is `data`.
    func appendPart(withFileData data: Data, name: String, fileName: String, mimeType: String)

    /// Appends a plain form field: `Content-Disposition: form-data; name="<name>"` and `data`.
    func appendPart(withFormData data: Data, name: String)

    /// Appends a part with the given headers and body. Headers are written `Content-Disposition`
    /// first, `Content-Type` second, the others in name order.
    func appendPart(withHeaders headers: [String: String]?, body: Data)

    /// Limits the body to `numberOfBytes` per read and pauses `delay` seconds after each read,
    /// for slow links. Default: no limit and no delay.
    func throttleBandwidth(withPacketSize numberOfBytes: Int, delay: TimeInterval)
}
