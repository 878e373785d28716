import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension URLError {
    /// A file sink's failure: `code`, the file's URL, "`action` `url.path`: the system's reason (errno N).", and the
    /// `errno` itself as the underlying POSIX error, for callers that tell a full disk from other failures.
    static func fileSink(_ code: URLError.Code, _ url: URL, _ action: String, errno number: Int32) -> URLError {
        URLError(code, userInfo: [
            NSURLErrorFailingURLErrorKey: url,
            NSLocalizedDescriptionKey: "Cannot \(action) \(url.path): \(String(cString: strerror(number))) (errno \(number)).",
            NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(number)),
        ])
    }
}
