import Foundation

extension CourierTransport {
    /// How a ``CourierTransport`` makes each request.
    public struct Configuration: Sendable {
        /// The idle timeout of every request, in seconds: a request fails with `URLError(.timedOut)` when no byte
        /// moves for this long once it is on a connection (a response body being read counts as moving). Default
        /// `nil`: the session's `SessionConfiguration.timeoutIntervalForRequest` (60 s unless changed).
        public var timeoutInterval: TimeInterval?

        /// The largest request body, in bytes, that is read into memory before it is sent, when its length is
        /// known. Such a body can be sent again, so the session's retries (interceptors) and `307`/`308` redirects
        /// work for it. A body with an unknown length, or a longer one, is streamed to the server as it is
        /// produced (with `Transfer-Encoding: chunked` when the length is unknown) and is sent only once. Default
        /// 256 KiB; `0` streams every body.
        public var maximumBufferedRequestBodySize: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - timeoutInterval: The idle timeout of every request. Default `nil`: the session's.
        ///   - maximumBufferedRequestBodySize: The largest known-length body sent from memory. Default 256 KiB.
        public init(timeoutInterval: TimeInterval? = nil, maximumBufferedRequestBodySize: Int = 256 * 1024) {
            self.timeoutInterval = timeoutInterval
            self.maximumBufferedRequestBodySize = maximumBufferedRequestBodySize
        }
    }
}
