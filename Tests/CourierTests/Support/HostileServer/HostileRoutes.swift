import Foundation
import Synchronization

/// The misbehaviours of issue #13, one path each, served by ``HostileServer``.
///
/// | path | what it does |
/// |---|---|
/// | `/redirect-to?location=X` | `302` to `X` exactly as given (an out-of-range port, another origin) |
/// | `/status/NNN?body=length\|chunked\|none` | a status line with code `NNN` (`000`, `042`, `600`…) |
/// | `/file/<scenario>` | the 100,000-byte resource ``HostileFile`` under a resumption scenario (see ``fileScenario``) |
/// | `/challenge/basic`, `/challenge/digest` | `401` with a Basic or Digest challenge, whatever the request carried |
/// | `/big?bytes=N`, `/big-json?bytes=N` | `N` bytes of text (or a JSON string of `N` x's), chunked, as fast as the client reads |
/// | `/slow?seconds=S` | 100 bytes spread over `S` seconds (`Content-Length`), for timeouts |
/// | `/stale` → `/stale-target` | a `302` kept alive, then the connection closed without answering the next request |
/// | `/stale-post` | `200` kept alive, then the connection closed without answering the next request |
final class HostileRoutes: Sendable {
    /// Paths whose first request was answered (`?cut=` and `?stall=` break only the first).
    private let answered = Mutex<Set<String>>([])

    /// Starts a ``HostileServer`` with these routes.
    static func startServer() async throws -> HostileServer {
        let routes = HostileRoutes()
        return try await HostileServer.start { request, connection in try await routes.handle(request, connection) }
    }

    /// Answers `request` on `connection` by its path.
    func handle(_ request: HostileServer.Request, _ connection: HostileServer.Connection) async throws -> HostileServer.Disposition {
        let path = request.path
        if path == "/redirect-to" {
            try await connection.writeHead("302 Found", [("Location", request.query("location") ?? "/"), ("Content-Length", "0")])
            return .keepAlive
        }
        if path.hasPrefix("/status/") {
            return try await status(String(path.dropFirst("/status/".count)), body: request.query("body") ?? "length", connection)
        }
        if path.hasPrefix("/file/") {
            return try await fileScenario(String(path.dropFirst("/file/".count)), request, connection)
        }
        switch path {
        case "/challenge/basic":
            try await connection.writeHead("401 Unauthorized", [("WWW-Authenticate", "Basic realm=\"hostile\""), ("Content-Length", "0")])
            return .keepAlive
        case "/challenge/digest":
            try await connection.writeHead("401 Unauthorized", [
                ("WWW-Authenticate", "Digest realm=\"hostile\", qop=\"auth\", nonce=\"abc123\", algorithm=MD5"),
                ("Content-Length", "0"),
            ])
            return .keepAlive
        case "/big":
            return try await big(Int64(request.query("bytes") ?? "") ?? 0, connection)
        case "/big-json":
            return try await big(Int64(request.query("bytes") ?? "") ?? 0, connection, json: true)
        case "/slow":
            return try await slow(seconds: Double(request.query("seconds") ?? "") ?? 1, connection)
        case "/stale", "/stale-target", "/stale-post":
            // A connection that carried one exchange dies when the next request arrives on it.
            if request.indexOnConnection > 0 { return .close }
            if path == "/stale" {
                try await connection.writeHead("302 Found", [("Location", "/stale-target"), ("Content-Length", "0")])
            } else {
                try await connection.writeHead("200 OK", [("Content-Length", "2"), ("Content-Type", "text/plain")])
                try await connection.write("ok")
            }
            return .keepAlive
        default:
            try await connection.writeHead("404 Not Found", [("Content-Length", "0")])
            return .keepAlive
        }
    }

    /// A status line with any three digits, and a body framed as asked.
    private func status(_ code: String, body: String, _ connection: HostileServer.Connection) async throws -> HostileServer.Disposition {
        let text = Data("not an HTTP status\n".utf8)
        switch body {
        case "chunked":
            try await connection.writeHead("\(code) Odd", [("Transfer-Encoding", "chunked")])
            try await connection.writeChunk(text)
            try await connection.endChunks()
        case "none":
            try await connection.writeHead("\(code) Odd", [("Content-Length", "0")])
        default:
            try await connection.writeHead("\(code) Odd", [("Content-Length", "\(text.count)")])
            try await connection.write(text)
        }
        return .keepAlive
    }

    /// The resource ``HostileFile`` as a scenario serves it.
    ///
    /// Without `Range`, every scenario sends the whole resource — or, on the first request for the path only,
    /// announces it and with `?cut=N` closes after `N` bytes (a broken first download that leaves a resumable
    /// partial file), with `?stall=N` sends `N` bytes and then nothing for 30 s (so the client can pause).
    /// With `Range: bytes=O-`:
    /// - `honest`: a correct `206` (the control case);
    /// - `no-validator`, `weak-etag`: no usable validator at all, chunked bodies (the resume cannot be proven);
    /// - `ignores-range`: always a whole `200`, chunked;
    /// - `changed`: the resource is now version 2 (`ETag: "v2"`), and the server ignores `If-Range`;
    /// - `wrong-start`, `wrong-total`, `no-content-range`, `overflow-length`, `long-range`: a `206` that does not
    ///   fit (another start, another complete length, no `Content-Range`, `Content-Length: Int64.max`, more bytes
    ///   than the range);
    /// - `unasked-206`: a `206` even to a request without `Range`;
    /// - `416-wrong-size`, `416-changed`: a `416` for another length, or with another entity tag.
    func fileScenario(_ scenario: String, _ request: HostileServer.Request, _ connection: HostileServer.Connection) async throws -> HostileServer.Disposition {
        let first = answered.withLock { $0.insert(request.path).inserted }
        // The changed resources change after the broken first download (`cut`, `stall`), if there was one.
        let breaksFirst = first && (request.query("cut") != nil || request.query("stall") != nil)
        let version = (scenario == "changed" || scenario == "416-changed") && !breaksFirst ? 2 : 1
        let content = HostileFile.content(version: version)
        var validators: [(String, String)] = switch scenario {
        case "no-validator": []
        case "weak-etag": [("ETag", "W/\"v1\"")]
        default: [("ETag", "\"v\(version)\""), ("Last-Modified", HostileFile.lastModified)]
        }
        let chunked = ["no-validator", "weak-etag", "ignores-range"].contains(scenario)
        let range = request.header("Range").flatMap(HostileFile.rangeStart(_:))

        if scenario == "unasked-206" {
            try await connection.writeHead("206 Partial Content", validators + [
                ("Content-Range", "bytes 0-\(content.count - 1)/\(content.count)"), ("Content-Length", "\(content.count)"),
            ])
            try await connection.write(content)
            return .keepAlive
        }
        guard let offset = range, scenario != "ignores-range", scenario != "no-validator", scenario != "weak-etag" else {
            if first, let cut = request.query("cut").flatMap(Int.init) {
                try await connection.writeHead("200 OK", validators + [("Content-Length", "\(content.count)")])
                try await connection.write(content.prefix(cut))
                return .close
            }
            if first, let stall = request.query("stall").flatMap(Int.init) {
                try await connection.writeHead("200 OK", validators + [("Content-Length", "\(content.count)")])
                try await connection.write(content.prefix(stall))
                try await Task.sleep(for: .seconds(30))
                return .close
            }
            if chunked {
                try await connection.writeHead("200 OK", validators + [("Transfer-Encoding", "chunked")])
                try await connection.writeChunk(content.prefix(content.count / 2))
                try await connection.writeChunk(content.suffix(from: content.count / 2))
                try await connection.endChunks()
            } else {
                try await connection.writeHead("200 OK", validators + [("Content-Length", "\(content.count)")])
                try await connection.write(content)
            }
            return .keepAlive
        }
        let total = content.count
        let rest = offset < total ? content.suffix(from: offset) : Data()
        switch scenario {
        case "416-wrong-size":
            try await connection.writeHead("416 Range Not Satisfiable", [("Content-Range", "bytes */\(total - 1)"), ("Content-Length", "0")])
            return .keepAlive
        case "416-changed":
            try await connection.writeHead("416 Range Not Satisfiable", [("ETag", "\"v2\""), ("Content-Range", "bytes */\(total)"), ("Content-Length", "0")])
            return .keepAlive
        case "wrong-start":
            let start = min(offset + 10, total - 1)
            validators.append(("Content-Range", "bytes \(start)-\(total - 1)/\(total)"))
            try await connection.writeHead("206 Partial Content", validators + [("Content-Length", "\(total - start)")])
            try await connection.write(content.suffix(from: start))
            return .keepAlive
        case "wrong-total":
            validators.append(("Content-Range", "bytes \(offset)-\(2 * total - 1)/\(2 * total)"))
            try await connection.writeHead("206 Partial Content", validators + [("Transfer-Encoding", "chunked")])
            try await connection.writeChunk(rest + rest)
            try await connection.endChunks()
            return .keepAlive
        case "no-content-range":
            try await connection.writeHead("206 Partial Content", validators + [("Content-Length", "\(rest.count)")])
            try await connection.write(rest)
            return .keepAlive
        case "overflow-length":
            validators.append(("Content-Range", "bytes \(offset)-\(total - 1)/\(total)"))
            try await connection.writeHead("206 Partial Content", validators + [("Content-Length", "\(Int64.max)")])
            try await connection.write(rest)
            return .close
        case "long-range":
            validators.append(("Content-Range", "bytes \(offset)-\(total - 1)/\(total)"))
            try await connection.writeHead("206 Partial Content", validators + [("Transfer-Encoding", "chunked")])
            try await connection.writeChunk(rest)
            try await connection.writeChunk(Data(repeating: 0x21, count: 10_000))
            try await connection.endChunks()
            return .keepAlive
        default:
            // `honest`, and `changed` (version 2 served from the offset with its own tag).
            if offset >= total {
                try await connection.writeHead("416 Range Not Satisfiable", [("Content-Range", "bytes */\(total)"), ("Content-Length", "0")])
                return .keepAlive
            }
            validators.append(("Content-Range", "bytes \(offset)-\(total - 1)/\(total)"))
            try await connection.writeHead("206 Partial Content", validators + [("Content-Length", "\(rest.count)")])
            try await connection.write(rest)
            return .keepAlive
        }
    }

    /// `bytes` bytes of text, chunked, 64 KiB at a time; with `json`, `{"data":"xxx…"}` with `bytes` x's.
    private func big(_ bytes: Int64, _ connection: HostileServer.Connection, json: Bool = false) async throws -> HostileServer.Disposition {
        try await connection.writeHead("200 OK", [("Content-Type", json ? "application/json" : "text/plain"), ("Transfer-Encoding", "chunked")])
        if json { try await connection.writeChunk(Data(#"{"data":""#.utf8)) }
        let block = json ? Data(repeating: UInt8(ascii: "x"), count: 65_536) : Data(repeating: UInt8(ascii: "x"), count: 65_536 - 1) + Data("\n".utf8)
        var left = bytes
        while left > 0 {
            let count = Int(min(left, Int64(block.count)))
            try await connection.writeChunk(count == block.count ? block : block.prefix(count))
            left -= Int64(count)
        }
        if json { try await connection.writeChunk(Data(#""}"#.utf8)) }
        try await connection.endChunks()
        return .keepAlive
    }

    /// 100 bytes, ten at a time, spread over `seconds`.
    private func slow(seconds: Double, _ connection: HostileServer.Connection) async throws -> HostileServer.Disposition {
        try await connection.writeHead("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "100")])
        for _ in 0..<10 {
            try await Task.sleep(for: .seconds(seconds / 10))
            try await connection.write("123456789\n")
        }
        return .keepAlive
    }
}

/// The resource the `/file/` scenarios serve: 100,000 bytes in two versions that differ in every byte.
enum HostileFile {
    static let length = 100_000
    static let lastModified = "Tue, 03 Nov 2026 10:00:00 GMT"

    /// Version 1 or 2 of the content.
    static func content(version: Int) -> Data {
        let (factor, addend) = version == 2 ? (17, 3) : (31, 7)
        return Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* factor &+ addend) })
    }

    /// The start of `bytes=N-`, or `nil`.
    static func rangeStart(_ header: String) -> Int? {
        guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
        return Int(header.dropFirst(6).dropLast())
    }
}
