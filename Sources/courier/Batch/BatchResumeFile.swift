import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where `courier batch` keeps a download that has not finished: its bytes in `OUTPUT.part` (nothing takes the final
/// name before the whole file has arrived and passed its checks) and the archived operation (``OperationArchive`` as
/// JSON) beside it as `OUTPUT.courier-operation`, readable by its owner only, written as the body starts (as aria2
/// keeps its control file) and again when the download stops or fails: a batch killed at any point (SIGKILL, a
/// crash, the OOM killer) continues the next time it runs.
///
/// Header fields are not stored, so no credential lands in the file: the next run sends its own.
final class BatchResumeFile: Sendable {
    /// The final output.
    let output: URL
    /// The bytes while they arrive.
    let partial: URL
    /// The archive beside them.
    let file: URL
    /// Whether the archive may exist: until ``load(url:headerFields:timeout:)`` looked, and once one is written. A
    /// small file's download, which never writes one, then removes none either: unlink(2) of a missing name still
    /// takes the directory's lock, one more directory operation per file of a batch.
    private let mayExist = Atomic<Bool>(true)

    init(output: URL) {
        self.output = output
        // Named as files outright: `URL(fileURLWithPath:)` asks the file system whether each is a directory.
        let path = output.path
        partial = URL(filePath: path + ".part", directoryHint: .notDirectory)
        file = URL(filePath: path + ".courier-operation", directoryHint: .notDirectory)
    }

    /// The archive to continue the download of `url` from, with `headerFields` and `timeout` for its request; `nil`
    /// when there is none, it is unreadable or for another URL, or the partial output is gone (then it is removed).
    /// The bytes kept are the ones in the partial file (a record written as the body started says 0).
    func load(url: URL, headerFields: [String: String], timeout: TimeInterval) -> OperationArchive? {
        guard FileStatus(path: file.path) != nil else {
            mayExist.store(false, ordering: .relaxed)
            return nil
        }
        guard let size = try? IntegrityCheck.size(of: partial),
              let data = PrivateFile.contents(of: file, atMost: 16 << 20),
              var archive = try? JSONDecoder().decode(OperationArchive.self, from: data),
              archive.request.url == url
        else {
            remove()
            return nil
        }
        archive.resumption?.offset = size
        guard archive.resumption?.canResume == true else {
            remove()
            return nil
        }
        archive.request.headers = headerFields
        archive.request.timeoutInterval = timeout
        archive.outputFilePath = partial.path
        return archive
    }

    /// Records the body `operation` has started to write into the partial file, so that its bytes can be continued
    /// whatever stops the process. Best effort: a record that cannot be written only means a killed download starts
    /// over.
    func record(_ operation: HTTPRequestOperation) {
        var archive = operation.makeArchive(pausing: false)
        guard let response = operation.response, (200..<300).contains(response.statusCode) else { return }
        archive.state = .ready
        archive.error = nil
        archive.resumption = DownloadResumption(offset: 0, response: response)
        write(archive)
    }

    /// Keeps what `operation` wrote to the partial file so that the next run continues it: stopped (`pausing`: the
    /// operation is paused and archived as it runs) or failed midway (the archive of the finished operation, made
    /// ready again). Returns the bytes kept, or `nil` when nothing can be continued (no bytes, or no validator to
    /// prove the next part belongs to them).
    func store(_ operation: HTTPRequestOperation, pausing: Bool) -> Int64? {
        var archive = operation.makeArchive()
        if !pausing {
            guard let response = operation.response, (200..<300).contains(response.statusCode) else { return nil }
            let size = (try? IntegrityCheck.size(of: partial)) ?? 0
            archive.state = .ready
            archive.error = nil
            archive.resumption = DownloadResumption(offset: size, response: response)
        }
        guard let resumption = archive.resumption, resumption.canResume else { return nil }
        return write(archive) ? resumption.offset : nil
    }

    /// Writes `archive` without its header fields; whether it was written.
    @discardableResult
    private func write(_ archive: OperationArchive) -> Bool {
        var archive = archive
        archive.request.headers = [:]
        guard let data = try? JSONEncoder().encode(archive) else { return false }
        mayExist.store(true, ordering: .relaxed)
        return (try? PrivateFile.replace(file, with: data)) != nil
    }

    /// Removes the record, if there may be one (`unlink(2)`: `FileManager.removeItem` builds an `NSError` for the
    /// usual case, a file that is not there).
    func remove() {
        guard mayExist.exchange(false, ordering: .relaxed) else { return }
        _ = unlink(file.path)
    }
}
