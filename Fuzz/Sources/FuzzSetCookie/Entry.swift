import Foundation

/// A small Public Suffix List in the list's own format, and one read from the fuzzed input's second part.
private let suffixes = PublicSuffixList(parsing: "com\nco.uk\n*.ck\n!www.ck\ngithub.io\n")

/// The URLs the cookies are set for (the first byte picks one): host names, a public suffix itself, IP addresses.
private let urls = [
    "https://shop.example.co.uk/cart/items", "http://example.com/", "https://github.io/", "http://127.0.0.1:8080/a/b",
    "http://[::1]/", "https://a.b.c.www.ck/x", "http://localhost/",
].compactMap(URL.init(string:))

/// libFuzzer entry point: the input is a URL choice, then `Set-Cookie` values one per line, stored into a jar.
/// Checks that a stored cookie belongs to the URL's host, never names a public suffix other than the host, stays
/// within the size limit, and that the jar keeps its limits and only sends matching cookies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let url = urls[Int(bytes[0]) % urls.count]
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let host = url.host?.lowercased() ?? ""
    let jar = CookieJar()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for line in lines {
        guard let cookie = SetCookieParser.cookie(from: line, for: url, now: now, suffixes: suffixes) else { continue }
        precondition(!cookie.name.isEmpty, "a cookie without a name")
        precondition(cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.maximumNameAndValueBytes, "too long")
        precondition(CookieRules.domain(host, matches: cookie.domain), "a cookie for a domain the host is not in")
        precondition(cookie.isHostOnly || !suffixes.isPublicSuffix(cookie.domain), "a cookie for a public suffix")
        precondition(!cookie.isHostOnly || cookie.domain == host, "a host-only cookie for another host")
        precondition(cookie.path.hasPrefix("/"), "a path that is not absolute")
    }
    jar.store(setCookieHeaders: lines, for: url, now: now)
    precondition(jar.allCookies.count <= CookieJar.maximumCookies, "the jar outgrew its limit")
    for cookie in jar.cookies(for: url, now: now) {
        precondition(cookie.matches(url, at: now), "a cookie sent that does not match the URL")
    }
    _ = jar.cookieHeader(for: url, now: now)
    // The list's own parser takes any text.
    let list = PublicSuffixList(parsing: text)
    for line in lines.prefix(8) { _ = list.isPublicSuffix(line.lowercased()) }
    return 0
}
