import Foundation
import FuzzDriver
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fields ``OperationArchive/validated()`` may name.
private let checkedFields: Set<String> = [
    "response.statusCode", "totalBytesRead", "resumption.offset", "resumption.completeLength", "outputFilePath",
    // The request's rules (OperationArchive.Request.validated(), shared with the durable queue's stored jobs).
    "request.url", "request.method", "request.headers", "request.timeoutInterval",
]

/// libFuzzer entry point. An input whose first byte is even is, after it, an operation archive as a user may hand
/// it over (the JSON that `JSONEncoder().encode(operation)` writes, as `courier batch` keeps beside a partial
/// download). An odd first byte makes the rest build one (``structuredArchive(_:)``): mutated JSON rarely stays JSON,
/// and this way every input reaches the validation with hostile values in well-formed fields.
///
/// Checks that what decodes is either refused by the validation, naming one of its fields, or is an archive whose
/// every count is in range, whose state is ready or finished, which survives its own encoding and validates to
/// itself again, and from which the request, the response head and the error are made without a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let json = start[0] & 1 == 0
        ? Data(bytes: start + 1, count: count - 1)
        : structuredArchive(FuzzInput(start + 1, count: count - 1, maximumChunk: 63))
    guard let json, let decoded = try? JSONDecoder().decode(OperationArchive.self, from: json) else { return 0 }
    let archive: OperationArchive
    do {
        archive = try decoded.validated()
    } catch {
        switch error {
        case .unsupportedVersion(let version):
            precondition(version != 1, "version 1 refused as unsupported")
        case .invalid(let field, let reason):
            precondition(checkedFields.contains(field), "refused for an unknown field \(field): \(reason)")
        }
        return 0
    }

    precondition(archive.state == .ready || archive.state == .finished, "restored as \(archive.state)")
    let limit = OperationArchive.largestByteCount
    precondition((0...limit).contains(archive.totalBytesRead), "totalBytesRead \(archive.totalBytesRead)")
    if let resumption = archive.resumption {
        precondition((0...limit).contains(resumption.offset), "resumption offset \(resumption.offset)")
        if let complete = resumption.completeLength {
            precondition((resumption.offset...limit).contains(complete), "complete length \(complete) of \(resumption.offset)")
        }
    }
    if let path = archive.outputFilePath {
        precondition(path.hasPrefix("/") && !path.utf8.contains(0), "output path \(path.debugDescription)")
    }
    precondition((try? archive.validated()) == archive, "an accepted archive that does not validate to itself")

    if let encoded = try? JSONEncoder().encode(archive) {
        let again = try? JSONDecoder().decode(OperationArchive.self, from: encoded)
        precondition(again == archive, "an archive that does not survive its own encoding")
    }

    let request = archive.request.makeRequest()
    precondition(request.url != nil, "a request without a URL")
    if let response = archive.response {
        let head = response.makeResponse(fallback: archive.request.url)
        precondition(head == nil || head?.statusCode == response.statusCode, "a response head with another status")
    }
    _ = archive.error?.makeError()
    _ = archive.resumption.map { $0.applied(to: request) }
    return 0
}

/// An archive's JSON with every field drawn from `input`: counts and status codes of any 64-bit value (or small
/// ones), any text for URLs, paths, methods, header names and values, optional fields present or not.
private func structuredArchive(_ start: FuzzInput) -> Data? {
    var input = start
    func integer() -> Int64 {
        let kind = input.byte() ?? 0
        if kind & 3 != 0 { return Int64(kind >> 2) - 8 + (kind & 3 == 2 ? 200 : 0) }
        return (0..<8).reduce(Int64(0)) { value, _ in value << 8 | Int64(input.byte() ?? 0) }
    }
    func present() -> Bool { (input.byte() ?? 0) & 1 == 1 }
    func fields() -> [String: String] {
        var fields: [String: String] = [:]
        for _ in 0..<Int((input.byte() ?? 0) & 7) { fields[input.text()] = input.text() }
        return fields
    }
    var request: [String: Any] = ["headers": fields(), "timeoutInterval": Double(integer()) / 16]
    if present() { request["url"] = input.text() }
    if present() { request["method"] = input.text() }
    if present() { request["body"] = Data(input.chunk()).base64EncodedString() }
    let states = ["ready", "executing", "paused", "finished", "", "READY"]
    var archive: [String: Any] = [
        "version": [1, 1, 1, 0, 2, -1][Int(input.byte() ?? 0) % 6], "request": request,
        "state": states[Int(input.byte() ?? 0) % states.count], "totalBytesRead": integer(),
    ]
    if present() {
        var response: [String: Any] = ["statusCode": integer(), "headers": fields()]
        if present() { response["url"] = input.text() }
        archive["response"] = response
    }
    if present() { archive["error"] = ["domain": input.text(), "code": integer(), "description": input.text()] }
    if present() { archive["responseData"] = Data(input.chunk()).base64EncodedString() }
    if present() { archive["partialData"] = Data(input.chunk()).base64EncodedString() }
    if present() { archive["outputFilePath"] = input.text() }
    if present() {
        var resumption: [String: Any] = ["offset": integer(), "continuesWithoutValidator": present()]
        if present() { resumption["entityTag"] = input.text() }
        if present() { resumption["lastModified"] = input.text() }
        if present() { resumption["completeLength"] = integer() }
        archive["resumption"] = resumption
    }
    return try? JSONSerialization.data(withJSONObject: archive)
}
