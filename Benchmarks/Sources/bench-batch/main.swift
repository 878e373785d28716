import AsyncHTTPClient
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import NIOSSL

// `bench-batch LIST --cacert CA [--concurrency N] [--mode delegate|collect] [--http1.1]`: the engine alone fetching a batch, for
// scripts/bench-downloads. LIST is `courier batch`'s format (`URL<TAB>OUTPUT` per line, OUTPUT relative to the current
// directory). It is the floor under `courier batch`: the same engine (AsyncHTTPClient, HTTP/2 over TLS when offered,
// NIO's singleton loops) with nothing Courier adds — no operations, no partial files or records, no checks, no
// progress line.
//   delegate: each file through AsyncHTTPClient's own `FileDownloadDelegate` (NIO's non-blocking file I/O);
//   collect:  each body collected by the async API, then written with one blocking write(2), as curl writes small files.
// Exits 1 with the reason on the first failure (a status outside 2xx included).

struct Options {
    var list = ""
    var caFile: String?
    var concurrency = 16
    var collect = false
    var http1Only = false

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let argument = rest.popFirst() {
            switch argument {
            case "--cacert": caFile = rest.popFirst()
            case "--concurrency": concurrency = rest.popFirst().flatMap(Int.init) ?? 0
            case "--mode": collect = rest.popFirst() == "collect"
            case "--http1.1": http1Only = true
            default: list = argument
            }
        }
        guard !list.isEmpty, concurrency > 0 else {
            throw BatchFailure("usage: bench-batch LIST --cacert CA [--concurrency N] [--mode delegate|collect] [--http1.1]")
        }
    }
}

struct BatchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func fetch(_ url: String, to output: String, client: HTTPClient, collect: Bool) async throws {
    if collect {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        guard response.status == .ok else { throw BatchFailure("\(url): HTTP \(response.status.code)") }
        let body = try await response.body.collect(upTo: 1 << 26)
        // open(2), write(2), close(2), as curl does: not `FileManager.createFile`, which writes a temporary file and
        // renames it.
        let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BatchFailure("\(output): cannot be created (errno \(errno))") }
        defer { close(descriptor) }
        let written = body.withUnsafeReadableBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == body.readableBytes else { throw BatchFailure("\(output): cannot be written (errno \(errno))") }
    } else {
        let delegate = try FileDownloadDelegate(path: output)
        let progress = try await client.execute(request: try HTTPClient.Request(url: url), delegate: delegate).futureResult.get()
        guard progress.head.status == .ok else { throw BatchFailure("\(url): HTTP \(progress.head.status.code)") }
    }
}

let options: Options
do { options = try Options(CommandLine.arguments.dropFirst()) } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
let entries: [(url: String, output: String)] = try String(contentsOfFile: options.list, encoding: .utf8)
    .split(separator: "\n").compactMap { line in
        let fields = line.split(separator: "\t")
        return fields.count == 2 ? (String(fields[0]), String(fields[1])) : nil
    }
var configuration = HTTPClient.Configuration()
if options.http1Only { configuration.httpVersion = .http1Only }
if let caFile = options.caFile {
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .file(caFile)
    configuration.tlsConfiguration = tls
}
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
var failure: (any Error)?
do {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = entries.makeIterator()
        for _ in 0..<options.concurrency {
            guard let entry = next.next() else { break }
            group.addTask { try await fetch(entry.url, to: entry.output, client: client, collect: options.collect) }
        }
        while try await group.next() != nil {
            guard let entry = next.next() else { continue }
            group.addTask { try await fetch(entry.url, to: entry.output, client: client, collect: options.collect) }
        }
    }
} catch {
    failure = error
}
try await client.shutdown().get()
if let failure {
    FileHandle.standardError.write(Data("bench-batch: \(failure)\n".utf8))
    exit(1)
}
