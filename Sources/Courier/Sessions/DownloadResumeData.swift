import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``DownloadTask/cancel(byProducingResumeData:)`` produces, encoded as JSON: enough to
/// continue the download in another task, another manager or another process.
///
/// It records the URL (after redirects), the request's method and headers, the path of the
/// partial file, the bytes it holds and the response's validators (`ETag`, `Last-Modified`).
/// The new task asks for the rest with `Range` and `If-Range`; a server that ignores ranges, or a
/// resource that changed, answers with the whole body and the download restarts cleanly.
public struct DownloadResumeData: Codable, Sendable, Equatable {
    /// The format version; 1.
    public var version = 1
    /// The URL to continue from (the last one, after redirects).
    public var url: URL
    /// The request method. Default `"GET"`.
    public var httpMethod: String
    /// The request's own headers (without `Range` and `If-Range`).
    public var headers: [String: String]
    /// The partial file, kept on disk until the download resumes.
    public var partialFilePath: String
    /// Bytes on disk and validators.
    public var resumption: DownloadResumption

    /// Decodes resume data produced by ``DownloadTask/cancel(byProducingResumeData:)``.
    /// - Throws: `URLError(.cannotDecodeRawData)` when `data` is not Courier resume data.
    public init(data: Data) throws {
        do {
            self = try JSONDecoder().decode(DownloadResumeData.self, from: data)
        } catch {
            throw URLError(.cannotDecodeRawData, userInfo: [
                NSUnderlyingErrorKey: error,
                NSLocalizedDescriptionKey: "The resume data is not Courier download resume data: \(error).",
            ])
        }
    }

    /// Resume data for `partialFile`, the start of a download that another program left (a browser, curl, wget):
    /// the task asks for the rest of `request`'s resource after the file's bytes with `Range` and no validator, as
    /// `curl -C -` and `wget -c` do (``DownloadResumption/continuesWithoutValidator``). Nothing proves those bytes
    /// are the start of what the server sends now: check the finished file against a digest when it matters. A
    /// server that ignores ranges sends the whole resource, and the download starts over. ``headers`` are
    /// `request`'s, credentials included: clear them before writing ``encoded()`` somewhere others can read.
    /// - Throws: `CocoaError(.fileReadNoSuchFile)` when the file's size cannot be read.
    public init(continuingWithoutValidator partialFile: URL, of request: URLRequest) throws {
        guard let size = FileStatus.size(atPath: partialFile.path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: partialFile.path])
        }
        self.init(request: request, partialFile: partialFile, resumption: DownloadResumption(offset: size, continuesWithoutValidator: true))
    }

    /// Resume data for the bytes of `partialFile`, which a download of `request`'s resource keeps at `resumption`.
    /// With a resumption that cannot continue (offset 0, no validator) it starts a download afresh into
    /// `partialFile`: a caller that keeps its own partial file (`courier download`'s `FILE.part`) gets its bytes
    /// there from the first one. ``headers`` are `request`'s (without `Range` and `If-Range`), credentials
    /// included: clear them before writing ``encoded()`` somewhere others can read.
    public init(request: URLRequest, partialFile: URL, resumption: DownloadResumption) {
        url = request.url ?? partialFile
        httpMethod = request.httpMethod ?? "GET"
        headers = DownloadResumption.removed(from: request).allHTTPHeaderFields ?? [:]
        partialFilePath = partialFile.path
        self.resumption = resumption
    }

    /// The JSON encoding handed to callers.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    /// The request to continue with (the exchange adds `Range` and `If-Range`).
    var request: URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = httpMethod
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// The partial file as a URL.
    var partialFile: URL { URL(fileURLWithPath: partialFilePath) }

    /// The resumption point, checked against the partial file: bytes that are no longer on disk
    /// cannot be kept, so a shorter or missing file lowers the offset (to 0: a clean restart).
    func verifiedResumption() -> DownloadResumption {
        let size = FileStatus.size(atPath: partialFilePath) ?? 0
        var resumption = self.resumption
        resumption.offset = min(resumption.offset, size)
        return resumption
    }
}
