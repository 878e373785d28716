import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

@Suite("Multipart: a 4 GiB file part in constant memory")
struct MultipartLargeFileTests {
    /// Resident set size of this process in bytes, from /proc/self/status (VmRSS).
    static func residentBytes() -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Int64(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs /proc (Linux)"),
          .timeLimit(.minutes(5)))
    func sparseFourGiBFileStreamsInConstantMemory() throws {
        let size: UInt64 = 4 << 30
        let directory = try SerializationTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sparse.bin")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let writer = try FileHandle(forWritingTo: file)
        try writer.truncate(atOffset: size)  // sparse: no blocks allocated
        try writer.close()

        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: "https://example.com/upload", parameters: ["note": "big"]) { form in
            try form.appendPart(withFileURL: file, name: "file")
        }
        let stream = try #require(request.httpBodyStream as? MultipartBodyStream)
        let announced = try #require(Int64(request.value(forHTTPHeaderField: "Content-Length") ?? ""))
        #expect(announced > Int64(size))

        // VmHWM is process-wide and other suites run in parallel, so sample VmRSS while reading
        // and compare the peak with the level before the read.
        let baseline = try #require(Self.residentBytes())
        var peak = baseline
        var total: Int64 = 0
        let chunk = 256 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        var reads = 0
        stream.open()
        while stream.hasBytesAvailable {
            let count = buffer.withUnsafeMutableBufferPointer { pointer in
                pointer.baseAddress.map { stream.read($0, maxLength: chunk) } ?? -1
            }
            guard count > 0 else { break }
            total += Int64(count)
            reads += 1
            if reads % 256 == 0, let rss = Self.residentBytes() { peak = max(peak, rss) }
        }
        stream.close()
        #expect(stream.streamError == nil)
        #expect(total == announced)
        let growth = peak - baseline
        print("4 GiB multipart stream: \(total) bytes in \(reads) reads; VmRSS baseline \(baseline >> 20) MiB, peak \(peak >> 20) MiB")
        #expect(growth < 64 << 20, "RSS grew by \(growth >> 20) MiB while streaming 4 GiB (baseline \(baseline >> 20) MiB, peak \(peak >> 20) MiB)")
    }
}
