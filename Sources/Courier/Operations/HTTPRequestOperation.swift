import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An operation for an HTTP or HTTPS request: AFNetworking's `AFHTTPRequestOperation`.
///
/// It validates and decodes the response with ``responseSerializer``, and pauses the way HTTP
/// allows: ``URLConnectionOperation/pause()`` keeps the bytes received (in memory, in
/// ``URLConnectionOperation/outputFileURL``, or written to ``URLConnectionOperation/outputStream``) and
/// ``URLConnectionOperation/resume()`` asks for the rest with `Range: bytes=N-` and `If-Range`
/// (the ETag, else Last-Modified). A 206 continues the body; a 200 (the resource changed, or the
/// server ignores ranges) starts it over cleanly; a 416 for exactly the kept length means the
/// body was complete; any other mismatch asks for the whole resource again.
///
/// `@unchecked Sendable` for the reasons given on ``URLConnectionOperation``; its own state lives
/// in a `Mutex` (the response serialization's).
open class HTTPRequestOperation: URLConnectionOperation, @unchecked Sendable {
    /// The response serialized once, lazily, for every reader.
    private let serialization = ResponseSerialization(serializer: HTTPResponseSerializer())

    /// Creates an operation for `request`.
    public required init(request: URLRequest) {
        super.init(request: request)
    }

    /// A copy as ``URLConnectionOperation/copy(with:)`` describes, with a copy of the
    /// ``responseSerializer`` (as AFNetworking copies it): changing one operation's serializer
    /// settings does not change the other's. A serializer that is not `NSCopying` (a value type, or a
    /// class of your own without it) is shared as it is.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        let serializer = responseSerializer
        (copy as? HTTPRequestOperation)?.responseSerializer =
            ((serializer as? any NSCopying)?.copy(with: zone) as? any URLResponseSerialization) ?? serializer
        return copy
    }

    /// Validates and decodes the response. Default: an ``HTTPResponseSerializer`` (2xx, any
    /// content type, the data itself as the object). Setting it discards an earlier result.
    public var responseSerializer: any URLResponseSerialization {
        get { serialization.serializer }
        set { serialization.serializer = newValue }
    }

    /// The body decoded by ``responseSerializer``: computed once, when first asked for after the
    /// operation finished (``setCompletionBlockWithSuccess(_:failure:)`` asks on a background
    /// queue, not on the completion queue), and then the same object for every caller; `nil` before
    /// that or when decoding failed. When the serializer's objects are mutable (an `XMLParser`, an
    /// `XMLDocument`; see ``URLResponseSerialization/returnsShareableObjects``), each access decodes a
    /// fresh object instead, so that no two threads share one.
    public var responseObject: Any? { serialized()?.object }

    /// The serialization error when the response was unacceptable or undecodable, else the
    /// transfer's error.
    open override var error: (any Error)? {
        let transfer = super.error
        if let serializationError { return serializationError }
        return transfer
    }

    /// The serialization error alone (serializing once to learn it, if nobody has yet).
    var serializationError: (any Error)? {
        guard isFinished else { return nil }
        if let outcome = serialization.outcome { return outcome.failure }
        return serialized()?.error
    }

    /// Serializes once the operation finished. A shareable result is kept and returned to every later caller;
    /// any other result is made afresh for each caller (see ``SerializedResponse``).
    private func serialized() -> SerializedResponse? {
        guard isFinished else { return nil }
        return serialization.take { [self] in
            let (response, data, transferError) = storage.withLock { ($0.response, $0.responseData, $0.error) }
            return transferError != nil && (response == nil || isCancelled) ? .nothing : .body(response, data)
        }
    }

    /// Resumes with a range request for the rest of the body.
    open override var resumesWithRange: Bool { true }

    /// Sets the completion block to call `success` with the operation and ``responseObject``, or
    /// `failure` with the operation and ``error`` (also when cancelled: `URLError(.cancelled)`).
    /// The response is serialized on a background queue; the block then runs on
    /// ``URLConnectionOperation/completionQueue`` (main when `nil`) inside
    /// ``URLConnectionOperation/completionGroup``.
    public func setCompletionBlockWithSuccess(
        _ success: (@Sendable (_ operation: HTTPRequestOperation, _ responseObject: Any?) -> Void)?,
        failure: (@Sendable (_ operation: HTTPRequestOperation, _ error: any Error) -> Void)?
    ) {
        // The block holds the operation until it has run; the operation releases the block then.
        completionBlock = { [self] in
            let context = completionContext
            context.group?.enter()
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                let serialized = serialized()
                let object = SerializedResponse(object: serialized?.object, error: nil)
                if let error = error {
                    context.deliver { failure?(self, error) }
                } else {
                    context.deliver { success?(self, object.object) }
                }
                context.group?.leave()
            }
        }
    }

    /// Waits for the operation to finish (it does not start it) and returns ``responseObject``,
    /// or throws ``error``. Cancelling the calling task cancels the operation.
    public func responseObject() async throws -> Any? {
        await finished()
        let serialized = SerializedResponse(object: serialized()?.object, error: error)
        if let error = serialized.error { throw error }
        return serialized.object
    }
}
