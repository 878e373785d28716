import AsyncHTTPClient
import CourierTestServer
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A response with its body collected.
struct Fetched {
    let status: Int
    let headers: HTTPHeaders
    let body: ByteBuffer

    var data: Data { Data(body.readableBytesView) }
    var text: String { String(decoding: body.readableBytesView, as: UTF8.self) }

    /// The body parsed as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    func header(_ name: String) -> String? { headers.first(name: name) }
}

/// Starts a plain server and a client that does not follow redirects, runs `body`, shuts both down.
func withServer<T>(
    decompression: Bool = false,
    _ body: (TestServer, HTTPClient) async throws -> T
) async throws -> T {
    let server = try await TestServer.start()
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    if decompression { configuration.decompression = .enabled(limit: .none) }
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(server, client)
        try await client.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        try? await server.shutdown()
        throw error
    }
}

extension HTTPClient {
    /// Sends a request to `path` on `server` and collects the body (up to 64 MiB).
    func fetch(
        _ server: TestServer,
        _ path: String,
        method: HTTPMethod = .GET,
        headers: [(String, String)] = [],
        body: HTTPClientRequest.Body? = nil
    ) async throws -> Fetched {
        var request = HTTPClientRequest(url: server.baseURL.absoluteString + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = body
        let response = try await execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Fetched(status: Int(response.status.code), headers: response.headers, body: collected)
    }
}

/// Lower-case hex SHA-256.
func sha256Hex(_ data: some DataProtocol) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// A `multipart/form-data` body built by hand for tests.
struct MultipartBuilder {
    let boundary: String
    private(set) var data = Data()

    init(boundary: String = "courier-test-boundary-7MA4YWxkTrZu0gW") {
        self.boundary = boundary
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func field(_ name: String, _ value: String) {
        data.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func file(_ name: String, filename: String, type: String = "application/octet-stream", contents: Data) {
        data.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n".utf8
            )
        )
        data.append(contents)
        data.append(Data("\r\n".utf8))
    }

    func finished() -> Data {
        data + Data("--\(boundary)--\r\n".utf8)
    }
}

/// Sends `request` verbatim over a new TCP connection and returns everything the server sends
/// until it closes (send `Connection: close`).
func rawHTTP(port: Int, _ request: String) async throws -> String {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(string: request))
        var response = ""
        for try await buffer in inbound {
            response += String(buffer: buffer)
        }
        return response
    }
}
