import Foundation

/// Makes ``GeneratedCase``s from a seed: mostly one fault per case, a redirect or challenge before another fault now
/// and then, and for downloads a first answer cut midway followed by an answer to the range request.
struct FaultGenerator {
    private var random: SplitMix64
    private let seed: UInt64
    private let port: Int
    private var number = 0

    /// Cases for a server on 127.0.0.1:`port`, the same for the same `seed`.
    init(seed: UInt64, port: Int) {
        self.seed = seed
        self.port = port
        random = SplitMix64(seed: seed)
    }

    /// The next case; every `commandLineEvery`-th download goes through `courier download` (0: never).
    mutating func next(commandLineEvery: Int) -> GeneratedCase {
        number += 1
        var resource = FaultResource(seed: random.next(), length: length())
        // One case in five is served gzipped (whatever the request accepts): decoded bytes must never be continued
        // by a range of the encoded ones.
        resource.gzipped = resource.length > 0 && Int.random(in: 0..<5, using: &random) == 0
        var client = GeneratedCase.Client.allCases.filter { $0 != .commandLine }.randomElement(using: &random) ?? .session
        if client == .download, commandLineEvery > 0, number % commandLineEvery == 0 { client = .commandLine }
        var faults = client == .download || client == .commandLine
            ? downloadFaults(resource) : requestFaults(resource)
        // `courier download` sends a session's header field: one case in three first goes to another origin.
        if client == .commandLine, Int.random(in: 0..<3, using: &random) == 0 {
            faults.insert(.redirect(location: otherOrigin()), at: 0)
        }
        let stalls = faults.contains { if case .stall = $0 { true } else { false } }
        return GeneratedCase(
            number: number, runSeed: seed, resource: resource, client: client, faults: faults, timeout: stalls ? 0.3 : 3
        )
    }

    /// Mostly small resources, some empty, some of a few hundred kilobytes.
    private mutating func length() -> Int {
        switch Int.random(in: 0..<20, using: &random) {
        case 0: 0
        case 1: Int.random(in: 100_000...400_000, using: &random)
        default: Int.random(in: 1...20_000, using: &random)
        }
    }

    private mutating func requestFaults(_ resource: FaultResource) -> [GeneratedFault] {
        var faults: [GeneratedFault] = []
        switch Int.random(in: 0..<10, using: &random) {
        case 0: faults.append(.redirect(location: redirectLocation()))
        case 1: faults.append(.challenge(garbage(from: Self.challengePieces)))
        default: break
        }
        faults.append(fault(resource))
        return faults
    }

    private mutating func downloadFaults(_ resource: FaultResource) -> [GeneratedFault] {
        guard resource.length > 1, Bool.random(using: &random) || Bool.random(using: &random) else {
            return requestFaults(resource)
        }
        let kept = Int.random(in: 1..<resource.length, using: &random)
        let chunked = Bool.random(using: &random)
        return [.truncated(at: kept, chunked: chunked), .range(rangeAnswer(kept: kept, of: resource, lengthStated: !chunked))]
    }

    /// One fault for a request of the whole resource.
    private mutating func fault(_ resource: FaultResource) -> GeneratedFault {
        let length = resource.length
        switch Int.random(in: 0..<24, using: &random) {
        case 0...3: return .honest(chunked: Bool.random(using: &random))
        case 4...6: return length > 0 ? .truncated(at: Int.random(in: 0..<length, using: &random), chunked: Bool.random(using: &random)) : .closeAtOnce
        case 7: return .conflictingLengths
        case 8: return .lengthBesideChunked
        case 9: return .badChunkSize(Self.chunkSizes.randomElement(using: &random) ?? "zz")
        case 10...11: return .oddStatusLine(Self.statusLines.randomElement(using: &random) ?? "200")
        case 12...13: return .interim(count: Int.random(in: 1...(Bool.random(using: &random) ? 3 : 300), using: &random), code: [100, 102, 103].randomElement(using: &random) ?? 100)
        case 14...15: return .redirect(location: redirectLocation())
        case 16...17: return .garbageFields((0..<Int.random(in: 1...6, using: &random)).map { _ in garbage(from: Self.cookiePieces + Self.challengePieces) })
        case 18: return .challenge(garbage(from: Self.challengePieces))
        case 19: return Int.random(in: 0..<8, using: &random) == 0 ? .stall(after: Int.random(in: 0...length, using: &random)) : .closeAtOnce
        case 20: return .closeAtOnce
        default: return .garbage((0..<Int.random(in: 1...300, using: &random)).map { _ in Self.garbageBytes.randomElement(using: &random) ?? 0 })
        }
    }

    /// An answer to `Range: bytes=kept-`; lies about the total only when the first answer stated the length (otherwise
    /// no client could tell them from the truth).
    private mutating func rangeAnswer(kept: Int, of resource: FaultResource, lengthStated: Bool) -> GeneratedFault.RangeAnswer {
        let length = resource.length
        var answers: [GeneratedFault.RangeAnswer] = [
            .honest, .honest, .ignored, .noContentRange, .changedEntityTag,
            .wrongStart(delta: nonZero(in: -kept...(length - 1 - kept))),
            .wrongContentLength(delta: nonZero(in: -(length - kept)...64)),
            .truncated(at: Int.random(in: 0..<(length - kept), using: &random)),
        ]
        if lengthStated {
            answers += [
                .wrongTotal(delta: nonZero(in: -kept...64)),
                .unsatisfiable(total: Bool.random(using: &random) ? kept : Int.random(in: 0...(length + 10), using: &random)),
            ]
        }
        return answers.randomElement(using: &random) ?? .honest
    }

    /// A value in `range` other than 0 (1 when the range holds nothing else).
    private mutating func nonZero(in range: ClosedRange<Int>) -> Int {
        let value = Int.random(in: range, using: &random)
        return value == 0 ? (range.upperBound > 0 ? 1 : -1) : value
    }

    /// A `Location` value: same and other origins, credentials in the URL, ports, schemes and IP literals a client
    /// must refuse or handle, very long values. The next request of the case is served wherever it lands. No host
    /// name needs a DNS server (only IP literals and `localhost`), so nothing leaves the machine.
    private mutating func redirectLocation() -> String {
        let path = "/fuzz/\(number)"
        let choices = [
            path, "\(number)", "//127.0.0.1:\(port)\(path)", "http://127.0.0.1:\(port)\(path)",
            "http://localhost:\(port)\(path)", "http://[::ffff:127.0.0.1]:\(port)\(path)", "http://[::1]:\(port)\(path)",
            "http://ann:secret@127.0.0.1:\(port)\(path)", "http://ann@localhost:\(port)\(path)",
            "http://127.0.0.1:99999\(path)", "http://127.0.0.1:0\(path)", "http://127.0.0.1:-1\(path)", "http://127.0.0.1:65536\(path)",
            "http://127.0.0.1:\(port)x\(path)", "ftp://127.0.0.1:\(port)\(path)", "javascript:alert(1)", "file:///etc/passwd",
            "data:text/plain,hello", "http+unix://%2Ftmp%2Fcourier-nowhere.sock\(path)", "https://127.0.0.1:\(port)\(path)",
            "http://[zz]\(path)", "http://[::1\(path)", "http://%zz\(path)", "\(path)?" + String(repeating: "a", count: 70_000),
            "http://127.0.0.1:\(port)/" + String(repeating: "a/", count: 4_000) + "fuzz/\(number)", "", " ", "\(path)#fragment",
            "\(path)/../..\(path)",
            "http://127.0.0.1:\(port)\(path)\u{7}", "\u{1}\(path)", "http://127.0.0.1:\(port)/ünïcödé\(path)", "http://127.0.0.1:\(port)/%00\(path)",
        ]
        return choices.randomElement(using: &random) ?? path
    }

    /// The case's path at another origin of the same server (another host name or literal, so no session field,
    /// credential or cookie of 127.0.0.1 may follow).
    private mutating func otherOrigin() -> String {
        let path = "/fuzz/\(number)"
        return ["http://localhost:\(port)\(path)", "http://[::ffff:127.0.0.1]:\(port)\(path)", "//localhost:\(port)\(path)"]
            .randomElement(using: &random) ?? path
    }

    /// Two to eight pieces joined: values that parse partly, with quotes left open, huge numbers and control bytes
    /// (never CR or LF, which would end the field: that is another fault).
    private mutating func garbage(from pieces: [String]) -> String {
        (0..<Int.random(in: 2...8, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
    }

    static let statusLines = [
        "200", "200 ", "2000 OK", "20 OK", "OK", "-200 OK", "099 Low", "600 High", "999 Nine", "000 Zero", "200 OK\u{0}",
        "200\tOK", " 200 OK", "0200 OK", "+200 OK", "2OO OK", "204 No Content", "304 Not Modified", "206 Partial Content",
        "101 Switching Protocols", "100 Continue",
    ]
    static let chunkSizes = ["zz", "-1", "0x10", "1 0", "ffffffffffffffffff", "7fffffffffffffff", "", ";ext", "1;"]
    static let cookiePieces = [
        "a=b", "; Domain=", "com", "127.0.0.1", ".localhost", "; Path=", "/../", "; Expires=", "Wed, 99 Foo 9999 99:99:99 GMT",
        "; Max-Age=", "-1", "99999999999999999999", "\u{1}", "=", ";;;", "; Secure", "; HttpOnly", "; SameSite=Nonsense",
        String(repeating: "x", count: 5000), "__Host-", "__Secure-", "ä", "\"", "\u{7F}",
    ]
    static let challengePieces = [
        "Basic", "Digest", "Bearer", " realm=", "\"", "nonce=", ",", " qop=auth", " algorithm=SHA-512", " algorithm=MD5-sess",
        "=\"\\", String(repeating: "n", count: 3000), " opaque=", "\u{0}", "\u{1B}[31m", "Negotiate abc==", " stale=true",
    ]
    static let garbageBytes: [UInt8] = Array(0...255) + Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n".utf8)
}
