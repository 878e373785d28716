import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

/// Builders shared by the serialization tests.
enum SerializationTestSupport {
    static let url = URL(string: "https://example.com/resource")

    static func response(status: Int = 200, contentType: String? = "application/json") -> HTTPURLResponse? {
        guard let url else { return nil }
        var headers: [String: String] = [:]
        if let contentType { headers["Content-Type"] = contentType }
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
    }

    /// The query string the default style produces for `parameters`.
    static func query(_ parameters: Any) throws -> String {
        try QueryStringPair.queryString(from: QueryStringSerialization.formValue(of: parameters), encoding: .utf8)
    }

    /// Reads a whole stream with reads of at most `chunk` bytes.
    static func drain(_ stream: InputStream, chunk: Int = 4096) -> (data: Data, reads: [Int], failed: Bool) {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var reads: [Int] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while stream.hasBytesAvailable {
            let count = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
                guard let base = pointer.baseAddress else { return -1 }
                return stream.read(base, maxLength: chunk)
            }
            if count < 0 { return (data, reads, true) }
            if count == 0 { break }
            reads.append(count)
            data.append(contentsOf: buffer[0..<count])
        }
        return (data, reads, false)
    }

    /// A fresh temporary directory, removed by the caller.
    static func makeTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-serialization-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
