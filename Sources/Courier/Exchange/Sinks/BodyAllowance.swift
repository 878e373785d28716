import Foundation

/// How many response body bytes an exchange accepts, checked chunk by chunk before a chunk reaches
/// any sink.
///
/// Two limits, both about untrusted input:
/// - a `206` continuing kept bytes must be exactly as long as its `Content-Range` says (its framing
///   may be chunked, so the engine cannot hold it to a length): a longer one is refused before the
///   excess is written, a shorter one fails as a lost connection (the partial file stays resumable);
/// - the caller's maximum (``ExchangeConfiguration/maximumBodySize``), counted with the kept bytes,
///   so that a server cannot make a client hold more than it agreed to.
struct BodyAllowance: Sendable {
    /// The exact body length, or `nil` for any.
    let exactLength: Int64?
    /// The most bytes kept plus received, or `nil` for no limit.
    let maximum: Int64?
    /// Bytes kept from an earlier transfer (counted against ``maximum``).
    let kept: Int64
    let url: URL?
    private(set) var received: Int64 = 0

    /// Whether no chunk needs checking.
    var isUnlimited: Bool { exactLength == nil && maximum == nil }

    /// Counts `count` more bytes.
    /// - Throws: `URLError(.badServerResponse)` past ``exactLength``, `URLError(.dataLengthExceedsMaximum)` past
    ///   ``maximum``; the chunk must then not be kept.
    mutating func admit(_ count: Int) throws {
        received += Int64(count)
        if let exactLength, received > exactLength {
            throw URLError(.badServerResponse, userInfo: [
                NSURLErrorFailingURLErrorKey: url as Any,
                NSLocalizedDescriptionKey: "The server sent more than the \(exactLength) bytes of the range it announced.",
            ])
        }
        try checkMaximum(adding: received)
    }

    /// Checks a length announced before the body (`Content-Length`) against ``maximum``.
    func checkAnnounced(_ length: Int64) throws {
        guard length >= 0 else { return }
        try checkMaximum(adding: length)
    }

    /// Checks that the body ended at its exact length.
    /// - Throws: `URLError(.networkConnectionLost)` when it ended short.
    func finish() throws {
        guard let exactLength, received < exactLength else { return }
        throw URLError(.networkConnectionLost, userInfo: [
            NSURLErrorFailingURLErrorKey: url as Any,
            NSLocalizedDescriptionKey: "The body ended after \(received) of the \(exactLength) bytes of its range.",
        ])
    }

    private func checkMaximum(adding bytes: Int64) throws {
        guard let maximum else { return }
        let (total, overflow) = kept.addingReportingOverflow(bytes)
        guard overflow || total > maximum else { return }
        throw URLError(.dataLengthExceedsMaximum, userInfo: [
            NSURLErrorFailingURLErrorKey: url as Any,
            NSLocalizedDescriptionKey: "The response body exceeds the maximum of \(maximum) bytes.",
        ])
    }
}
