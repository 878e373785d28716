import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a partial download stopped, and how to tell whether the resource is still the same:
/// the exchange asks for the rest with `Range: bytes=offset-` and `If-Range: validator`
/// (RFC 9110 §13.1.5, §14.2).
///
/// Codable, so it can be written to disk and survive a process restart.
public struct DownloadResumption: Sendable, Codable, Equatable {
    /// Bytes already received and kept.
    public var offset: Int64
    /// The response's `ETag`, if it had one.
    public var entityTag: String?
    /// The response's `Last-Modified`, if it had one.
    public var lastModified: String?

    /// Creates a resumption point.
    public init(offset: Int64, entityTag: String? = nil, lastModified: String? = nil) {
        self.offset = offset
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    /// The resumption point for `offset` bytes of `response`'s body, with its validators.
    public init(offset: Int64, response: HTTPURLResponse) {
        self.init(
            offset: offset,
            entityTag: response.value(forHTTPHeaderField: "ETag"),
            lastModified: response.value(forHTTPHeaderField: "Last-Modified")
        )
    }

    /// The `If-Range` value: a strong entity tag, else the last-modified date, else `nil`
    /// (a weak tag cannot be used with `If-Range`).
    public var validator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// Whether the exchange can ask for the rest at all: something was received and a validator
    /// exists to prove the resource has not changed.
    public var canResume: Bool { offset > 0 && validator != nil }

    /// `request` with the `Range` and `If-Range` headers of this resumption.
    func applied(to request: URLRequest) -> URLRequest {
        guard canResume, let validator else { return request }
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

    /// What a response to a resumed request means for the bytes already kept.
    func outcome(of response: HTTPURLResponse) -> ResumptionOutcome {
        let contentRange = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init(parsing:))
        switch response.statusCode {
        case 206:
            guard let range = contentRange, range.start == offset else { return .mismatch }
            return .continued(from: offset)
        case 416:
            if let total = contentRange?.total, total == offset { return .alreadyComplete }
            return .mismatch
        case 200:
            return .restarted
        default:
            return .unrelated
        }
    }
}

/// How a resumed download went.
public enum ResumptionOutcome: Sendable, Equatable {
    /// The server sent the rest (206); the body continues after `from` kept bytes.
    case continued(from: Int64)
    /// The resource changed or the server ignores ranges (200): the body is the whole resource,
    /// and kept bytes were discarded.
    case restarted
    /// Everything had already been received (416 with a total equal to the kept bytes).
    case alreadyComplete
    /// The server's answer does not fit the kept bytes (a 416 for another length, or a 206 for
    /// another range); the exchange asks again for the whole resource.
    case mismatch
    /// Another status (an error): the kept bytes are left untouched and the body goes to memory.
    case unrelated
}

/// A `Content-Range` value: `bytes start-end/total`, `bytes start-end/*` or `bytes */total`.
struct ContentRange: Equatable {
    let start: Int64?
    let end: Int64?
    let total: Int64?

    init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        total = halves[1] == "*" ? nil : Int64(halves[1])
        if halves[1] != "*" && total == nil { return nil }
        if halves[0] == "*" {
            start = nil
            end = nil
        } else {
            let bounds = halves[0].split(separator: "-", maxSplits: 1)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
            start = first
            end = last
        }
    }
}
