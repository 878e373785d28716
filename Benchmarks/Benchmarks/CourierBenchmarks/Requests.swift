import AsyncHTTPClient
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request of each kind the benchmarks time; each returns the body bytes that crossed.
enum Requests {
    static func sessionGET(_ url: URL) async throws -> Int {
        let manager = fixture.sessionManager()
        return try await withCheckedThrowingContinuation { continuation in
            manager.GET(url.absoluteString, parameters: nil, success: { _, object in
                continuation.resume(returning: (object as? Data)?.count ?? 0)
            }, failure: { _, error in
                continuation.resume(throwing: error)
            })
        }
    }

    static func asyncGET(_ url: URL) async throws -> Int {
        let (object, _) = try await fixture.sessionManager().get(url.absoluteString)
        return (object as? Data)?.count ?? 0
    }

    static func operationGET(_ url: URL) async throws -> Int {
        let manager = fixture.operationManager()
        return try await withCheckedThrowingContinuation { continuation in
            manager.GET(url.absoluteString, parameters: nil, success: { _, object in
                continuation.resume(returning: (object as? Data)?.count ?? 0)
            }, failure: { _, error in
                continuation.resume(throwing: error)
            })
        }
    }

    static func clientGET(_ url: URL) async throws -> Int {
        let response = try await fixture.httpClient().execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
        return try await response.body.collect(upTo: 1 << 24).readableBytes
    }

    static func sessionDownloadDiscarding(_ url: URL) async throws -> Int {
        let (_, body) = try await fixture.sessionManager().bytes(for: URLRequest(url: url))
        var count = 0
        for try await chunk in body { count += chunk.count }
        return count
    }

    static func clientDownloadDiscarding(_ url: URL) async throws -> Int {
        let response = try await fixture.httpClient().execute(HTTPClientRequest(url: url.absoluteString), timeout: .hours(1))
        var count = 0
        for try await buffer in response.body { count += buffer.readableBytes }
        return count
    }

    static func sessionDownloadToFile(_ url: URL) async throws -> Int {
        let target = fixture.downloadTarget()
        try? FileManager.default.removeItem(at: target)
        defer { try? FileManager.default.removeItem(at: target) }
        _ = try await fixture.sessionManager().download(URLRequest(url: url), to: target)
        return BenchFixture.transferBytes
    }

    static func clientDownloadToFile(_ url: URL) async throws -> Int {
        let target = fixture.downloadTarget()
        try? FileManager.default.removeItem(at: target)
        defer { try? FileManager.default.removeItem(at: target) }
        let delegate = try FileDownloadDelegate(path: target.path)
        let progress = try await fixture.httpClient().execute(request: try HTTPClient.Request(url: url.absoluteString), delegate: delegate).futureResult.get()
        return progress.receivedBytes
    }

    static func sessionUpload(_ file: URL, to url: URL) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let manager = fixture.sessionManager()
        return try await withCheckedThrowingContinuation { continuation in
            manager.uploadTask(with: request, fromFile: file) { _, _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: BenchFixture.transferBytes) }
            }.resume()
        }
    }

    static func sessionMultipartUpload(_ file: URL, to url: URL) async throws -> Int {
        let manager = fixture.sessionManager()
        return try await withCheckedThrowingContinuation { continuation in
            manager.POST(url.absoluteString, parameters: nil, constructingBodyWith: { form in
                try form.appendPart(withFileURL: file, name: "file")
            }, success: { _, _ in
                continuation.resume(returning: BenchFixture.transferBytes)
            }, failure: { _, error in
                continuation.resume(throwing: error)
            })
        }
    }
}
