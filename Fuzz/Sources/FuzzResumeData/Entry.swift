import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The statuses a server answers a range request with (the first input byte picks one).
private let statuses = [206, 206, 416, 200, 404]

/// libFuzzer entry point: a status byte, then resume data as a user may hand it over (`FILE.courier-resume`, the
/// JSON of `DownloadResumeData`), an empty line, and the response's header fields one per line (`Name: value`):
/// `Content-Range`, `Content-Length`, `ETag`, `Last-Modified`, as any server may send them.
///
/// Checks that decoded resume data survives its own encoding, asks for a range only for bytes it holds, and that
/// a response is taken as the continuation of the kept bytes only when its range starts at their end, ends with
/// the representation and agrees with every length stated; a 416 proves them complete only for their own length.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let status = statuses[Int(bytes[0]) % statuses.count]
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let parts = text.split(separator: "\n\n", maxSplits: 1, omittingEmptySubsequences: false)
    guard let resume = try? DownloadResumeData(data: Data(parts[0].utf8)) else { return 0 }

    let again = try? DownloadResumeData(data: resume.encoded())
    precondition(again == resume, "resume data that does not survive its own encoding")
    let resumption = resume.resumption
    let request = resumption.applied(to: resume.request)
    if let range = request.value(forHTTPHeaderField: "Range") {
        precondition(resumption.offset > 0 && range == "bytes=\(resumption.offset)-", "a range for bytes not held: \(range)")
    }

    var fields: [String: String] = [:]
    for line in (parts.count > 1 ? parts[1] : "").split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    guard let url = URL(string: "http://127.0.0.1/file"),
          let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
    else { return 0 }

    let continuation = resumption.continuation(in: response)
    if let continuation {
        precondition(status == 206, "a continuation in a \(status)")
        precondition(continuation.start == resumption.offset, "a continuation that does not start at the kept bytes' end")
        guard let length = continuation.length else { preconditionFailure("a continuation of unknown length") }
        precondition(length > 0, "an empty continuation")
        if let total = continuation.total {
            precondition(continuation.end == total - 1, "a continuation that stops before the end")
        }
        if let complete = resumption.completeLength {
            precondition(continuation.total == complete, "a continuation of another length than recorded")
        }
        let declared = response.expectedContentLength
        precondition(declared < 0 || declared == length, "a continuation whose Content-Length disagrees")
    }
    switch resumption.outcome(of: response) {
    case .continued(let from):
        precondition(continuation != nil && from == resumption.offset, "continued without a fitting range")
    case .alreadyComplete:
        let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init(parsing:))
        precondition(status == 416 && range?.total == resumption.offset, "complete without proof")
    case .restarted:
        precondition(status == 200, "restarted by a \(status)")
    case .mismatch, .unrelated:
        break
    }
    return 0
}
