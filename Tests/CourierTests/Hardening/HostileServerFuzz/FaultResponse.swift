import Foundation

/// Writes one ``GeneratedFault`` for a resource on a connection of the ``HostileServer``.
struct FaultResponse {
    let resource: FaultResource
    let connection: HostileServer.Connection

    static let lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

    /// Writes `fault`; `rangeStart` is the `k` of the request's `Range: bytes=k-`, if any. A range answer to a request
    /// without a range is an honest `200`; any other fault answers a range request as it would a whole one.
    func write(_ fault: GeneratedFault, rangeStart: Int?) async throws -> HostileServer.Disposition {
        let bytes = resource.representation
        let length = bytes.count
        switch fault {
        case .honest(let chunked):
            try await writeWhole(bytes, chunked: chunked)
            return .keepAlive
        case .truncated(let at, let chunked):
            try await connection.writeHead("200 OK", fields(length: chunked ? nil : length))
            if chunked {
                try await connection.writeChunk(bytes.prefix(at))
            } else {
                try await connection.write(bytes.prefix(at))
            }
            return .close
        case .conflictingLengths:
            try await connection.writeHead("200 OK", fields(length: length) + [("Content-Length", "\(length + 1)")])
            try await connection.write(bytes)
            return .close
        case .lengthBesideChunked:
            try await connection.writeHead("200 OK", fields(length: nil) + [("Content-Length", "\(length / 2)")])
            try await writeChunks(bytes)
            return .close
        case .badChunkSize(let line):
            try await connection.writeHead("200 OK", fields(length: nil))
            try await connection.write("\(line)\r\n")
            try await connection.write(bytes.prefix(16))
            try await connection.write("\r\n0\r\n\r\n")
            return .close
        case .oddStatusLine(let line):
            try await connection.writeHead(line, fields(length: length))
            try await connection.write(bytes)
            return .close
        case .interim(let count, let code):
            let interim = code == 103 ? "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" : "HTTP/1.1 \(code) Interim\r\n\r\n"
            try await connection.write(String(repeating: interim, count: count))
            try await writeWhole(bytes, chunked: false)
            return .keepAlive
        case .redirect(let location):
            try await connection.writeHead("302 Found", [("Location", location), ("Content-Length", "0")])
            return .keepAlive
        case .garbageFields(let values):
            var extra: [(String, String)] = []
            for (index, value) in values.enumerated() {
                extra.append((index.isMultiple(of: 2) ? "Set-Cookie" : "WWW-Authenticate", value))
            }
            try await connection.writeHead("200 OK", fields(length: length) + extra)
            try await connection.write(bytes)
            return .keepAlive
        case .challenge(let value):
            try await connection.writeHead("401 Unauthorized", [("WWW-Authenticate", value), ("Content-Length", "0")])
            return .keepAlive
        case .stall(let after):
            try await connection.writeHead("200 OK", fields(length: length))
            try await connection.write(bytes.prefix(after))
            try? await Task.sleep(for: .seconds(2))
            return .close
        case .closeAtOnce:
            return .close
        case .garbage(let junk):
            try await connection.write(Data(junk))
            return .close
        case .range(let answer):
            guard let start = rangeStart else {
                try await writeWhole(bytes, chunked: false)
                return .keepAlive
            }
            return try await writeRange(answer, start: start, bytes: bytes)
        }
    }

    private func writeRange(_ answer: GeneratedFault.RangeAnswer, start: Int, bytes: Data) async throws -> HostileServer.Disposition {
        let length = bytes.count
        guard start < length else {
            try await connection.writeHead("416 Range Not Satisfiable", [("Content-Range", "bytes */\(length)"), ("Content-Length", "0")])
            return .keepAlive
        }
        func partial(from first: Int, total: String, contentLength: Int? = nil, entityTag: String? = nil, range: Bool = true) async throws {
            let rest = bytes.dropFirst(first)
            var head: [(String, String)] = [
                ("Content-Length", "\(contentLength ?? rest.count)"), ("ETag", entityTag ?? resource.entityTag),
                ("Last-Modified", Self.lastModified),
            ] + coding
            if range { head.append(("Content-Range", "bytes \(first)-\(length - 1)/\(total)")) }
            try await connection.writeHead("206 Partial Content", head)
            try await connection.write(Data(rest))
        }
        switch answer {
        case .honest:
            try await partial(from: start, total: "\(length)")
            return .keepAlive
        case .wrongStart(let delta):
            try await partial(from: min(max(start + delta, 0), length - 1), total: "\(length)")
            return .close
        case .wrongTotal(let delta):
            try await partial(from: start, total: "\(max(length + delta, 0))")
            return .close
        case .wrongContentLength(let delta):
            try await partial(from: start, total: "\(length)", contentLength: max(length - start + delta, 0))
            return .close
        case .noContentRange:
            try await partial(from: start, total: "\(length)", range: false)
            return .close
        case .changedEntityTag:
            try await partial(from: start, total: "\(length)", entityTag: "\"changed\"")
            return .close
        case .ignored:
            try await writeWhole(bytes, chunked: false)
            return .keepAlive
        case .truncated(let at):
            try await connection.writeHead("206 Partial Content", [
                ("Content-Length", "\(length - start)"), ("Content-Range", "bytes \(start)-\(length - 1)/\(length)"),
                ("ETag", resource.entityTag), ("Last-Modified", Self.lastModified),
            ] + coding)
            try await connection.write(Data(bytes.dropFirst(start).prefix(at)))
            return .close
        case .unsatisfiable(let total):
            try await connection.writeHead("416 Range Not Satisfiable", [("Content-Range", "bytes */\(total)"), ("Content-Length", "0")])
            return .close
        }
    }

    /// The fields of an honest answer: the length (or chunked), the validators and the type.
    private func fields(length: Int?) -> [(String, String)] {
        [
            length.map { ("Content-Length", "\($0)") } ?? ("Transfer-Encoding", "chunked"),
            ("ETag", resource.entityTag), ("Last-Modified", Self.lastModified), ("Content-Type", "application/octet-stream"),
        ] + coding
    }

    /// `Content-Encoding: gzip` for a gzipped representation — sent whatever the request accepts, as a hostile server
    /// would, and with the same strong validator as the bytes it encodes.
    private var coding: [(String, String)] {
        resource.gzipped ? [("Content-Encoding", "gzip")] : []
    }

    private func writeWhole(_ bytes: Data, chunked: Bool) async throws {
        try await connection.writeHead("200 OK", fields(length: chunked ? nil : bytes.count))
        if chunked {
            try await writeChunks(bytes)
        } else {
            try await connection.write(bytes)
        }
    }

    private func writeChunks(_ bytes: Data) async throws {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let end = min(offset + 16_384, bytes.endIndex)
            try await connection.writeChunk(bytes[offset..<end])
            offset = end
        }
        try await connection.endChunks()
    }
}
