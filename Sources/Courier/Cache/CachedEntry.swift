import Foundation

/// A stored response: what the cache keeps of one request and its answer (RFC 9111 §3), body included.
struct CachedEntry: Sendable, Equatable {
    /// The request's URL, absolute.
    var url: String
    /// The status code.
    var statusCode: Int
    /// The protocol version it came over.
    var httpVersion: String
    /// The header fields as received, in order, repeats kept.
    var headerFields: [HeaderField]
    /// The request's values of the headers the response's `Vary` names (lower-cased names), `nil` for absent.
    var selectingHeaders: [String: String?]
    /// When the request that got this response was sent (`request_time` of RFC 9111 §4.2.3).
    var requestTime: Date
    /// When its response arrived (`response_time`).
    var responseTime: Date
    /// The body, as received (still content-coded when it came so).
    var body: Data

    struct HeaderField: Sendable, Equatable, Codable {
        var name: String
        var value: String
    }

    /// Every value of the header `name` (compared without regard to case).
    func values(_ name: String) -> [String] {
        headerFields.filter { $0.name.isHeaderName(name) }.map(\.value)
    }

    /// The first value of the header `name`.
    func value(_ name: String) -> String? {
        headerFields.first { $0.name.isHeaderName(name) }?.value
    }

    /// The response's `Cache-Control` directives.
    var cacheControl: CacheControl {
        CacheControl(cacheControl: values("Cache-Control"), pragma: values("Pragma"))
    }

    /// The header names `Vary` lists, lower-cased (`*` included as is).
    var varyNames: [String] {
        Self.varyNames(in: headerFields.map { (name: $0.name, value: $0.value) })
    }

    /// The header names the `Vary` fields among `fields` list, lower-cased.
    static func varyNames(in fields: [(name: String, value: String)]) -> [String] {
        fields.filter { $0.name.isHeaderName("Vary") }.flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether the entry has a validator to revalidate with.
    var hasValidator: Bool { value("ETag") != nil || value("Last-Modified") != nil }

    /// The stored header fields updated by a `304`'s (RFC 9111 §3.2): each field the 304 carries replaces the stored
    /// fields of that name, except the ones that describe the stored body.
    func updated(with notModified: [(name: String, value: String)], requestTime: Date, responseTime: Date) -> CachedEntry {
        let kept = ["Content-Length", "Content-Encoding", "Content-Range", "Transfer-Encoding"]
        let incoming = notModified.filter { field in !kept.contains { field.name.isHeaderName($0) } }
        var fields = headerFields.filter { stored in !incoming.contains { $0.name.isHeaderName(stored.name) } }
        fields += incoming.map { HeaderField(name: $0.name, value: $0.value) }
        var entry = self
        entry.headerFields = fields
        entry.requestTime = requestTime
        entry.responseTime = responseTime
        return entry
    }

    /// The bytes an entry takes in a store (its body and a rough share for the head).
    var cost: Int {
        body.count + headerFields.reduce(url.utf8.count + 64) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}
