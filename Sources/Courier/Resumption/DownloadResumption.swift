import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a partial download stopped, and how to tell whether the resource is still the same:
/// the exchange asks for the rest with `Range: bytes=offset-` and `If-Range: validator`
/// (RFC 9110 §13.1.5, §14.2).
///
/// Parts are combined only when the server proves they belong together (RFC 9110 §15.3.7.3): the
/// `206` carries the same strong validator and content coding, its `Content-Range` starts exactly at ``offset`` and
/// runs to the end of a representation of the recorded ``completeLength``, and its `Content-Length` (when
/// sent) is that range's length. Anything else starts the download over from the first byte.
///
/// A resumption without a validator starts over, unless it is made with ``continuesWithoutValidator``: the kept
/// bytes of a file another program left (a browser, curl, wget), continued as `curl -C -` and `wget -c` do, with
/// `Range` and no `If-Range`.
///
/// A `Range` counts the bytes of the representation as sent (RFC 9110 §14.1.2), so the kept bytes are continued only
/// when they are those bytes: the resumption records the representation's ``contentCoding`` (a `206` in another coding
/// does not continue them), and kept bytes that were content-decoded on the way (``keptBytesAreDecoded``) are never
/// continued: the download starts over from the first byte.
///
/// Codable, so it can be written to disk and survive a process restart.
public struct DownloadResumption: Sendable, Codable, Equatable {
    /// Bytes already received and kept.
    public var offset: Int64
    /// The response's `ETag`, if it had one.
    public var entityTag: String?
    /// The response's `Last-Modified`, if it had one.
    public var lastModified: String?
    /// The length of the whole representation the kept bytes belong to, when the response told it
    /// (its `Content-Length` for a `200`, the total of its `Content-Range` for a `206`). Default `nil`.
    public var completeLength: Int64?
    /// Whether, without a validator, the kept bytes are continued anyway: taken to be the first ``offset`` bytes of
    /// what the server sends now, which nothing proves. A `206` must still start at ``offset`` and run to the end
    /// of the representation, whose length its `Content-Range` must state. Default `false` (without a validator the download starts over). Ignored when a
    /// validator exists.
    public var continuesWithoutValidator: Bool
    /// The content coding of the representation the kept bytes belong to, as the server sent it (its
    /// `Content-Encoding`, lower-cased, such as `gzip`), or `nil` for none. A `206` continues the kept bytes only in
    /// the same coding. Default `nil`.
    public var contentCoding: String?
    /// Whether the kept bytes are the body decoded from ``contentCoding`` rather than the bytes as sent. A `Range`
    /// cannot continue them (it counts the bytes as sent), so ``canResume`` is `false` and the download starts over
    /// from the first byte. Default `false`.
    public var keptBytesAreDecoded: Bool

    /// Creates a resumption point.
    public init(
        offset: Int64, entityTag: String? = nil, lastModified: String? = nil, completeLength: Int64? = nil,
        continuesWithoutValidator: Bool = false, contentCoding: String? = nil, keptBytesAreDecoded: Bool = false
    ) {
        self.offset = offset
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.completeLength = completeLength
        self.continuesWithoutValidator = continuesWithoutValidator
        self.contentCoding = contentCoding
        self.keptBytesAreDecoded = keptBytesAreDecoded
    }

    private enum CodingKeys: String, CodingKey {
        case offset, entityTag, lastModified, completeLength, continuesWithoutValidator, contentCoding, keptBytesAreDecoded
    }

    /// Decodes a resumption; one written before ``continuesWithoutValidator`` existed does not continue without a
    /// validator, and one written before ``contentCoding`` existed holds bytes in no coding.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        offset = try container.decode(Int64.self, forKey: .offset)
        entityTag = try container.decodeIfPresent(String.self, forKey: .entityTag)
        lastModified = try container.decodeIfPresent(String.self, forKey: .lastModified)
        completeLength = try container.decodeIfPresent(Int64.self, forKey: .completeLength)
        continuesWithoutValidator = try container.decodeIfPresent(Bool.self, forKey: .continuesWithoutValidator) ?? false
        contentCoding = try container.decodeIfPresent(String.self, forKey: .contentCoding)
        keptBytesAreDecoded = try container.decodeIfPresent(Bool.self, forKey: .keptBytesAreDecoded) ?? false
    }

    /// The resumption point for `offset` bytes of `response`'s body, with its validators, the
    /// representation's complete length and content coding, and whether the body was decoded on the way (then it
    /// cannot be continued: see ``keptBytesAreDecoded``). The one place resume data is made from a response.
    public init(offset: Int64, response: HTTPURLResponse) {
        let completeLength: Int64? = switch response.statusCode {
        case 206: response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init(parsing:))?.total
        case 200: response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        default: nil
        }
        self.init(
            offset: offset,
            entityTag: response.value(forHTTPHeaderField: "ETag"),
            lastModified: response.value(forHTTPHeaderField: "Last-Modified"),
            completeLength: completeLength,
            contentCoding: response.decodedContentCoding.flatMap(Self.normalizedCoding) ?? Self.coding(of: response),
            keptBytesAreDecoded: response.decodedContentCoding != nil
        )
    }

    /// The `Content-Encoding` of `response` as the resumption records it: lower-cased, without `identity`, `nil` for
    /// none.
    static func coding(of response: HTTPURLResponse) -> String? {
        response.value(forHTTPHeaderField: "Content-Encoding").flatMap(normalizedCoding)
    }

    private static func normalizedCoding(_ value: String) -> String? {
        let codings = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        return codings.isEmpty ? nil : codings.joined(separator: ", ")
    }

    /// The `If-Range` value: a strong entity tag, else the last-modified date, else `nil`
    /// (a weak tag cannot be used with `If-Range`).
    public var validator: String? {
        if let entityTag, !Self.isWeak(entityTag) { return entityTag }
        return lastModified
    }

    /// Whether the exchange can ask for the rest at all: something was received, the kept bytes are the bytes as sent
    /// (not ``keptBytesAreDecoded``), and a validator exists to prove the resource has not changed (or
    /// ``continuesWithoutValidator``).
    public var canResume: Bool { offset > 0 && !keptBytesAreDecoded && (validator != nil || continuesWithoutValidator) }

    /// `request` with the `Range` and `If-Range` headers of this resumption (no `If-Range` without a validator).
    func applied(to request: URLRequest) -> URLRequest {
        guard canResume else { return request }
        var request = request
        request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
        request.setValue(validator, forHTTPHeaderField: "If-Range")
        return request
    }

    /// `request` without the resumption headers.
    static func removed(from request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(nil, forHTTPHeaderField: "Range")
        request.setValue(nil, forHTTPHeaderField: "If-Range")
        return request
    }

    /// What a response to the range request of this resumption means for the bytes already kept.
    func outcome(of response: HTTPURLResponse) -> ResumptionOutcome {
        switch response.statusCode {
        case 206:
            return continuation(in: response) != nil ? .continued(from: offset) : .mismatch
        case 416:
            // `bytes */N`: the kept bytes are the whole representation only if N is their count and
            // the length recorded with them agrees. The validator matched: a server evaluates `Range`
            // only when `If-Range` matches (RFC 9110 §13.1.5), else it answers 200 — and a 416 that
            // shows a validator (nginx shows none) must show the same one.
            guard let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init(parsing:)),
                  range.start == nil, range.total == offset,
                  completeLength == nil || completeLength == offset,
                  !hasOtherValidator(than: response)
            else { return .mismatch }
            return .alreadyComplete
        case 200:
            return .restarted
        default:
            return .unrelated
        }
    }

    /// What the response to a request sent *without* a range (the resumption could not be used) means
    /// for the kept bytes: a success replaces them, anything else leaves them alone.
    static func outcome(ofFullRequest response: HTTPURLResponse) -> ResumptionOutcome {
        (200..<300).contains(response.statusCode) ? .restarted : .unrelated
    }

    /// The byte range a `206` continues the kept bytes with, or `nil` when it does not fit them: the
    /// range must start at ``offset``, end with the representation, agree with ``completeLength`` and the
    /// `Content-Length`, and the response must carry the same strong validator (unless there is none and
    /// ``continuesWithoutValidator``).
    func continuation(in response: HTTPURLResponse) -> ContentRange? {
        guard let range = rangeOfSameRepresentation(in: response), range.start == offset else { return nil }
        if let total = range.total {
            guard range.end == total - 1 else { return nil }  // `bytes=offset-` asks for everything after it
        }
        // Unproven bytes are continued only by a range that says where the representation ends.
        if validator == nil, continuesWithoutValidator { return range.total == nil ? nil : range }
        return hasSameStrongValidator(as: response) ? range : nil
    }

    /// Whether `response` carries exactly the bytes `first...last` of the representation this resumption recorded
    /// (a segment of `courier download --split`, asked for with `Range: bytes=first-last` and `If-Range`): a `206`
    /// whose `Content-Range` is that range of a representation of ``completeLength`` bytes, checked as
    /// ``continuation(in:)`` checks a single continuation (the `Content-Length`, the content coding, the same strong
    /// validator). `false` without a validator or a recorded length: nothing would prove the segments belong together.
    package func carriesSegment(_ response: HTTPURLResponse, first: Int64, last: Int64) -> Bool {
        guard validator != nil, completeLength != nil, let range = rangeOfSameRepresentation(in: response),
              range.start == first, range.end == last
        else { return false }
        return hasSameStrongValidator(as: response)
    }

    /// The `Content-Range` of a `206` that can belong to the recorded representation: strictly parsed, of the
    /// recorded ``completeLength`` (when known), as long as its `Content-Length` (when sent), in the recorded content
    /// coding and not decoded on the way. The validator is the caller's to compare.
    private func rangeOfSameRepresentation(in response: HTTPURLResponse) -> ContentRange? {
        guard response.statusCode == 206,
              let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init(parsing:)),
              let length = range.length
        else { return nil }
        if let completeLength {
            guard range.total == completeLength else { return nil }
        }
        let declared = response.expectedContentLength
        guard declared < 0 || declared == length else { return nil }
        // Bytes of one coding are never continued with bytes of another (a gzip prefix and an identity rest).
        guard response.decodedContentCoding == nil, Self.coding(of: response) == contentCoding else { return nil }
        return range
    }

    /// Whether `response` carries the validator the kept bytes were recorded with, compared strongly
    /// (RFC 9110 §8.8.3.2): the same strong entity tag, or — when the kept bytes had only a date — the
    /// same `Last-Modified`.
    func hasSameStrongValidator(as response: HTTPURLResponse) -> Bool {
        if let entityTag, !Self.isWeak(entityTag) {
            guard let other = response.value(forHTTPHeaderField: "ETag") else { return false }
            return !Self.isWeak(other) && other == entityTag
        }
        guard let lastModified else { return false }
        return response.value(forHTTPHeaderField: "Last-Modified") == lastModified
    }

    /// Whether `response` shows a validator of the kind the kept bytes were recorded with, and it differs.
    func hasOtherValidator(than response: HTTPURLResponse) -> Bool {
        if let entityTag, !Self.isWeak(entityTag), let other = response.value(forHTTPHeaderField: "ETag") {
            return other != entityTag
        }
        if validator == lastModified, let lastModified, let other = response.value(forHTTPHeaderField: "Last-Modified") {
            return other != lastModified
        }
        return false
    }

    private static func isWeak(_ entityTag: String) -> Bool {
        entityTag.hasPrefix("W/")
    }
}

/// How a resumed download went.
public enum ResumptionOutcome: Sendable, Equatable {
    /// The server sent the rest (206); the body continues after `from` kept bytes.
    case continued(from: Int64)
    /// The resource changed or the server ignores ranges (200): the body is the whole resource,
    /// and kept bytes were discarded.
    case restarted
    /// Everything had already been received: a 416 whose `Content-Range: bytes */N` equals the kept
    /// bytes, with the same strong validator.
    case alreadyComplete
    /// The server's answer does not fit the kept bytes (a 206 for another range, another length or
    /// another validator, or a 416 that does not prove them complete); the exchange asks again for
    /// the whole resource and starts over from the first byte.
    case mismatch
    /// Another status (an error): the kept bytes are left untouched and the body goes to memory.
    case unrelated
}

/// A `Content-Range` value: `bytes start-end/total`, `bytes start-end/*` or `bytes */total`.
///
/// Parsed strictly, as untrusted input: numbers are plain non-negative decimals that fit `Int64`,
/// `start <= end`, and `end < total` when both are known.
struct ContentRange: Equatable {
    let start: Int64?
    let end: Int64?
    let total: Int64?

    /// The number of bytes in the range (`end - start + 1`), or `nil` for `*` (or a range too large to count).
    var length: Int64? {
        guard let start, let end else { return nil }
        let (span, overflow) = (end - start).addingReportingOverflow(1)
        return overflow ? nil : span
    }

    init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            total = nil
        } else {
            guard let total = Self.number(halves[1]) else { return nil }
            self.total = total
        }
        if halves[0] == "*" {
            guard total != nil else { return nil }  // `bytes */*` says nothing
            start = nil
            end = nil
        } else {
            let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else { return nil }
            if let total, last >= total { return nil }
            start = first
            end = last
        }
    }

    /// A decimal of digits only (no sign, no spaces) that fits `Int64`.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }
}
