import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where `courier batch` keeps a download it could not finish, so that running the batch again continues it: the
/// archived operation (``OperationArchive`` as JSON) beside the partial output, as `OUTPUT.courier-operation`,
/// readable by its owner only.
///
/// Header fields are not stored, so no credential lands in the file: the next run sends its own.
struct BatchResumeFile {
    /// The partial output.
    let output: URL
    /// The archive beside it.
    let file: URL

    init(output: URL) {
        self.output = output
        file = URL(fileURLWithPath: output.path + ".courier-operation")
    }

    /// The archive to continue the download of `url` from, with `headerFields` and `timeout` for its request; `nil`
    /// when there is none, it is unreadable or for another URL, or the partial output is gone (then it is removed).
    func load(url: URL, headerFields: [String: String], timeout: TimeInterval) -> OperationArchive? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        guard FileManager.default.fileExists(atPath: output.path),
              let data = try? Data(contentsOf: file),
              var archive = try? JSONDecoder().decode(OperationArchive.self, from: data),
              archive.request.url == url, archive.resumption?.canResume == true
        else {
            remove()
            return nil
        }
        archive.request.headers = headerFields
        archive.request.timeoutInterval = timeout
        archive.outputFilePath = output.path
        return archive
    }

    /// Keeps what `operation` wrote to the output so that the next run continues it: stopped (`pausing`: the
    /// operation is paused and archived as it runs) or failed midway (the archive of the finished operation, made
    /// ready again). Returns the bytes kept, or `nil` when nothing can be continued (no bytes, or no validator to
    /// prove the next part belongs to them).
    func store(_ operation: HTTPRequestOperation, pausing: Bool) -> Int64? {
        var archive = operation.makeArchive()
        if !pausing {
            guard let response = operation.response, (200..<300).contains(response.statusCode) else { return nil }
            let size = (try? IntegrityCheck.size(of: output)) ?? 0
            archive.state = .ready
            archive.error = nil
            archive.resumption = DownloadResumption(offset: size, response: response)
        }
        guard let resumption = archive.resumption, resumption.canResume else { return nil }
        archive.request.headers = [:]
        guard let data = try? JSONEncoder().encode(archive), (try? PrivateFile.replace(file, with: data)) != nil else { return nil }
        return resumption.offset
    }

    func remove() {
        try? FileManager.default.removeItem(at: file)
    }
}
