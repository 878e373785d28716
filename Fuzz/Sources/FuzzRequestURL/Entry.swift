import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libFuzzer entry point: the first line of the input is a request URL, the rest a `Location` value
/// of a 302 answering it. Each URL that Courier's check (`RequestURLCheck`) lets through — the
/// request's, and the redirect's after `RedirectRule` resolved it — is turned into the engine's
/// request type, `HTTPClient.Request`, which is where AsyncHTTPClient and SwiftNIO trap on a port
/// out of range or an empty host. A trap, or the engine refusing a URL the check accepted, is a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let split = bytes.firstIndex(of: 0x0A) ?? bytes.count
    let first = String(decoding: bytes[..<split], as: UTF8.self)
    let location = String(decoding: bytes[min(split + 1, bytes.count)...], as: UTF8.self)

    guard let url = URL(string: first), checkedEngineRequest(url) else { return 0 }
    guard let response = HTTPURLResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: ["Location": location]),
          let next = RedirectRule.nextRequest(after: response, for: URLRequest(url: url)),
          let target = next.url
    else { return 0 }
    _ = checkedEngineRequest(target)
    return 0
}

/// Whether `url` passes the check; if it does, the engine must build its request without trapping or refusing.
private func checkedEngineRequest(_ url: URL) -> Bool {
    guard (try? RequestURLCheck.check(url)) != nil else { return false }
    do {
        _ = try HTTPClient.Request(url: url)
    } catch {
        preconditionFailure("RequestURLCheck accepted \(url.absoluteString.debugDescription) but the engine refused it: \(error)")
    }
    return true
}
