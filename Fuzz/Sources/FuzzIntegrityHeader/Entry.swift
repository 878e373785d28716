import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The statuses `courier download` reads integrity promises from (the first input byte picks one).
private let statuses = [200, 206, 416, 206, 404]

/// libFuzzer entry point: a status byte, then header fields one per line (`Name: value`) as a server may send them:
/// `Content-Length`, `Content-Range`, `Repr-Digest`, `Content-Digest`, `Content-MD5`, read by `DigestFieldParser`
/// (the parsing half of `courier download`'s `IntegrityCheck`).
///
/// Checks that a promised size is never negative, that digests cover the file from 0 (`Repr-Digest`) or from the
/// start of a 206's range, never from past its end; that an accepted `Content-Range` agrees with the library's strict
/// `ContentRange` wherever that one has a total; that structured digests never name MD5, survive their own
/// serialization, and that a dictionary split over two field lines parses to the members of both.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let status = statuses[Int(bytes[0]) % statuses.count]
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)

    // Field lines combine as HTTP combines them: repeated names join with ", "; names compare without case.
    var fields: [String: String] = [:]
    for line in text.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        fields[name] = fields[name].map { $0 + ", " + value } ?? value
    }
    let promises = DigestFieldParser.promises(status: status) { fields[$0.lowercased()] }

    if let size = promises.expectedSize {
        precondition(size >= 0, "a negative size promised: \(size)")
    }
    let range = fields["content-range"].flatMap(DigestFieldParser.contentRange)
    let responseStart: Int64 = status == 206 ? (range?.start ?? 0) : 0
    for digest in promises.digests {
        switch digest.header {
        case "Repr-Digest":
            precondition(digest.from == 0, "a Repr-Digest that does not cover the whole file")
            precondition(digest.algorithm != .md5, "an MD5 in a structured field")
        case "Content-Digest":
            precondition(digest.from == responseStart, "a Content-Digest from \(digest.from), not the response's start")
            precondition(digest.algorithm != .md5, "an MD5 in a structured field")
        case "Content-MD5":
            precondition(digest.from == responseStart, "a Content-MD5 from \(digest.from), not the response's start")
            precondition(digest.algorithm == .md5 && digest.expected.count == 16, "a Content-MD5 that is no MD5")
        default:
            preconditionFailure("a digest from \(digest.header)")
        }
        if let size = promises.expectedSize, digest.from > 0 {
            precondition(digest.from < size, "a digest from byte \(digest.from) of a \(size)-byte file")
        }
    }

    if let value = fields["content-range"] {
        checkContentRange(value)
        checkSegment(value)
    }
    for name in ["repr-digest", "content-digest"] {
        guard let value = fields[name] else { continue }
        checkStructuredDigests(value)
    }
    // The parsers take any text, not only what sits after a field name.
    checkContentRange(text)
    checkStructuredDigests(text)
    return 0
}

/// An accepted range is within its representation, and agrees with the library's strict parser where that one
/// knows the total.
private func checkContentRange(_ value: String) {
    let loose = DigestFieldParser.contentRange(value)
    if let loose {
        precondition(loose.total >= 0, "a negative total: \(value.debugDescription)")
        if let first = loose.start {
            precondition(first >= 0 && first < loose.total, "a range start \(first) outside 0..<\(loose.total): \(value.debugDescription)")
        }
    }
    if let strict = ContentRange(parsing: value), let total = strict.total {
        precondition(loose?.total == total && loose?.start == strict.start, "disagrees with ContentRange on \(value.debugDescription)")
    }
}

/// Members never name MD5, re-serialize to themselves, and a value split at a comma parses to both halves' members.
private func checkStructuredDigests(_ value: String) {
    let members = DigestFieldParser.structuredDigests(value)
    precondition(!members.contains { $0.algorithm == .md5 }, "an MD5 member")
    let written = members.map { "\($0.algorithm.rawValue)=:\($0.value.base64EncodedString()):" }.joined(separator: ", ")
    let again = DigestFieldParser.structuredDigests(written)
    precondition(again.map(\.algorithm) == members.map(\.algorithm) && again.map(\.value) == members.map(\.value),
                 "members that do not survive their own serialization: \(written.debugDescription)")
    guard let comma = value.firstIndex(of: ",") else { return }
    let halves = DigestFieldParser.structuredDigests(String(value[..<comma]))
        + DigestFieldParser.structuredDigests(String(value[value.index(after: comma)...]))
    precondition(halves.map(\.algorithm) == members.map(\.algorithm) && halves.map(\.value) == members.map(\.value),
                 "a dictionary that parses differently split at its first comma: \(value.debugDescription)")
}

/// A segment of `courier download --split` is taken exactly when its `Content-Range` is the range asked for, of the
/// recorded length, with the recorded validator (`DownloadResumption.carriesSegment`): never one byte earlier or later.
private func checkSegment(_ value: String) {
    guard let strict = ContentRange(parsing: value), let first = strict.start, let last = strict.end, let total = strict.total,
          let url = URL(string: "http://fuzz.example/file"),
          let response = HTTPURLResponse(url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: ["Content-Range": value, "ETag": "\"v\""]),
          response.value(forHTTPHeaderField: "Content-Range") == value
    else { return }
    let representation = DownloadResumption(offset: 0, entityTag: "\"v\"", completeLength: total)
    precondition(representation.carriesSegment(response, first: first, last: last), "the range asked for was refused: \(value.debugDescription)")
    if last < Int64.max {
        precondition(!representation.carriesSegment(response, first: first, last: last + 1), "a range one byte longer was taken: \(value.debugDescription)")
    }
    if first > 0 {
        precondition(!representation.carriesSegment(response, first: first - 1, last: last), "a range one byte earlier was taken: \(value.debugDescription)")
    }
    let other = DownloadResumption(offset: 0, entityTag: "\"w\"", completeLength: total)
    precondition(!other.carriesSegment(response, first: first, last: last), "another validator was taken: \(value.debugDescription)")
}
