import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A raw HTTP/1.1 server on an ephemeral 127.0.0.1 port that answers with whatever bytes its handler
/// writes: broken status lines, lying lengths, mismatched ranges, connections closed at the worst
/// moment. No HTTP library sits between the handler and the socket, so it can do what a well-behaved
/// server framework refuses to.
///
/// Every request head it reads is logged (with the connection it came on), so a test can check
/// what reached the server: which headers went to which origin, how many times a request was sent.
final class HostileServer: Sendable {
    /// A request head as the server read it.
    struct Request: Sendable {
        let method: String
        /// The request target: path and query.
        let target: String
        let headers: [(name: String, value: String)]
        let body: Data
        /// Which connection it came on (counted from 0 per server), and its place on that connection.
        let connection: Int
        let indexOnConnection: Int

        /// The path without the query.
        var path: String { String(target.prefix { $0 != "?" }) }

        /// The first value of the query parameter `name`.
        func query(_ name: String) -> String? {
            URLComponents(string: target)?.queryItems?.first { $0.name == name }?.value
        }

        /// The first value of the header `name` (case-insensitive).
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What happens to the connection after a handler returns.
    enum Disposition: Sendable {
        /// Read the next request on it.
        case keepAlive
        /// Close it.
        case close
    }

    /// Answers one request by writing raw bytes.
    typealias Handler = @Sendable (Request, Connection) async throws -> Disposition

    /// The server's end of one connection, for a handler to write to.
    struct Connection: Sendable {
        fileprivate let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

        /// Writes `text` as it is (UTF-8).
        func write(_ text: String) async throws {
            try await outbound.write(ByteBuffer(string: text))
        }

        /// Writes `bytes` as they are.
        func write(_ bytes: Data) async throws {
            try await outbound.write(ByteBuffer(bytes: bytes))
        }

        /// Writes a response head: `HTTP/1.1 <status line>` and the header fields, then the blank line.
        func writeHead(_ statusLine: String, _ headers: [(String, String)]) async throws {
            var text = "HTTP/1.1 \(statusLine)\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            try await write(text + "\r\n")
        }

        /// Writes `bytes` as one chunk of a chunked body.
        func writeChunk(_ bytes: Data) async throws {
            guard !bytes.isEmpty else { return }
            try await write(String(bytes.count, radix: 16) + "\r\n")
            try await write(bytes)
            try await write("\r\n")
        }

        /// Ends a chunked body.
        func endChunks() async throws {
            try await write("0\r\n\r\n")
        }
    }

    let port: Int
    private let serverChannel: any Channel
    private let log = RequestLog()
    private let serving: Task<Void, Never>

    /// The server's `http://127.0.0.1:PORT` URL for `path` (which may carry a query).
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Every request read so far, in order.
    var requests: [Request] { log.entries.withLock { $0 } }

    /// The requests read so far for `path` (without the query).
    func requests(to path: String) -> [Request] {
        requests.filter { $0.path == path }
    }

    /// Starts a server that answers every request with `handler`.
    static func start(_ handler: @escaping Handler) async throws -> HostileServer {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return HostileServer(server, handler: handler)
    }

    private init(_ server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, handler: @escaping Handler) {
        port = server.channel.localAddress?.port ?? 0
        serverChannel = server.channel
        let log = self.log
        serving = Task {
            let counter = Atomic<Int>(0)
            try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            let number = counter.wrappingAdd(1, ordering: .relaxed).oldValue
                            group.addTask {
                                await Self.serve(connection, number: number, log: log, handler: handler)
                            }
                        }
                    } catch {}
                }
            }
        }
    }

    /// The requests read, shared with the connection tasks.
    private final class RequestLog: Sendable {
        let entries = Mutex<[Request]>([])
    }

    /// Closes the listening socket and every connection.
    func stop() async {
        try? await serverChannel.close()
        serving.cancel()
        await serving.value
    }

    private static func serve(
        _ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, number: Int, log: RequestLog, handler: Handler
    ) async {
        try? await channel.executeThenClose { inbound, outbound in
            var reader = RequestReader()
            var index = 0
            var iterator = inbound.makeAsyncIterator()
            let connection = Connection(outbound: outbound)
            while true {
                while let head = reader.nextRequest() {
                    let request = Request(
                        method: head.method, target: head.target, headers: head.headers, body: head.body,
                        connection: number, indexOnConnection: index
                    )
                    index += 1
                    log.entries.withLock { $0.append(request) }
                    guard try await handler(request, connection) == .keepAlive else { return }
                }
                guard var chunk = try await iterator.next() else { return }
                reader.append(&chunk)
                // A TLS ClientHello (a client sent to https:// on this plain port) is no request: close, as a server
                // that answers garbage with 400 and closes would, instead of waiting for a head that never comes.
                if reader.startsWithTLSHandshake { return }
            }
        }
    }
}

/// Splits the bytes of a connection into request heads (and `Content-Length` bodies).
private struct RequestReader {
    struct Head {
        let method: String
        let target: String
        let headers: [(name: String, value: String)]
        let body: Data
    }

    private var buffer: [UInt8] = []

    /// Whether the connection's first byte opens a TLS handshake record.
    var startsWithTLSHandshake: Bool { buffer.first == 0x16 }

    mutating func append(_ chunk: inout ByteBuffer) {
        buffer.append(contentsOf: chunk.readBytes(length: chunk.readableBytes) ?? [])
    }

    mutating func nextRequest() -> Head? {
        guard let end = headEnd() else { return nil }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        let bodyStart = end + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let body = Data(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return Head(
            method: parts.first.map(String.init) ?? "",
            target: parts.count > 1 ? String(parts[1]) : "/",
            headers: headers,
            body: body
        )
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
