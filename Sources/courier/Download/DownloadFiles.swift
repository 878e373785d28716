import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Where `courier download` keeps things: the finished file, the partial file while the body arrives (`FILE.part`:
/// nothing takes the final name before the whole body is there) and the resume data next to it
/// (`FILE.courier-resume`, the JSON of Courier's `DownloadResumeData`), written when the body starts, as aria2 keeps
/// its control file: a download killed at any point (SIGKILL, a crash, the OOM killer) continues with `--continue`
/// from the bytes that reached `FILE.part`.
struct DownloadFiles {
    /// The finished file.
    let output: URL
    /// The partial bytes of an interrupted download.
    let partial: URL
    /// The resume data of an interrupted download.
    let resumeData: URL
    /// The segments of an interrupted `--split` download (``SegmentRecord``).
    let segments: URL

    /// The files for `output`, or when `nil` for the last path segment of `url` made safe (``SafeFileName``); a
    /// relative path is taken from `directory` (`--output-dir`), or from the current directory when it is `nil`.
    init(output: String?, url: URL, directory: URL? = nil) {
        let path = output.flatMap { $0.isEmpty ? nil : $0 } ?? SafeFileName.forURL(url)
        // An absolute -o ignores the directory; a relative one (or the URL's name) goes in it.
        self.output = URL(fileURLWithPath: path, relativeTo: directory).absoluteURL.standardizedFileURL
        partial = URL(fileURLWithPath: self.output.path + ".part")
        resumeData = URL(fileURLWithPath: self.output.path + ".courier-resume")
        segments = URL(fileURLWithPath: self.output.path + ".courier-segments")
    }

    /// Writes `record` to ``segments``, readable by its owner only.
    /// - Throws: ``CLIFailure`` (usage) when it cannot be written.
    func store(_ record: SegmentRecord) throws {
        do {
            try PrivateFile.replace(segments, with: try JSONEncoder().encode(record))
        } catch let failure as PrivateFile.Failure {
            throw CLIFailure.usage("cannot write \(segments.path): \(failure.reason)")
        }
    }

    /// The segments of an interrupted `--split` download, or `nil` when there is no record or its partial file is
    /// gone.
    /// - Throws: ``CLIFailure`` (usage) when the record exists but does not describe a split download.
    func loadSegments() throws -> SegmentRecord? {
        guard FileManager.default.fileExists(atPath: segments.path), FileManager.default.fileExists(atPath: partial.path) else { return nil }
        do {
            return try JSONDecoder().decode(SegmentRecord.self, from: Data(contentsOf: segments))
        } catch {
            throw CLIFailure.usage("\(segments.path) is not a Courier segment record (\(error)); delete it to start over")
        }
    }

    /// Stores the resume data of a cancelled download task: its partial file moves to ``partial``
    /// and the data, pointing there, is written to ``resumeData``. Returns the bytes kept.
    func store(_ data: Data) throws -> Int64 {
        var resume = try DownloadResumeData(data: data)
        let current = URL(fileURLWithPath: resume.partialFilePath).standardizedFileURL
        if current.path != partial.path {
            try? FileManager.default.removeItem(at: partial)
            try FileManager.default.moveItem(at: current, to: partial)
        }
        resume.partialFilePath = partial.path
        do {
            try write(resume)
        } catch {
            // A full disk can refuse this record; the one written as the body started still describes FILE.part.
            guard FileManager.default.fileExists(atPath: resumeData.path) else { throw error }
        }
        return resume.resumption.offset
    }

    /// Records the body `task` is starting to write into an empty ``partial`` (`offset` 0): its URL and the
    /// validators, length and content coding of its response, so that the bytes that reach ``partial`` can be
    /// continued whatever stops the process. A body that continues kept bytes keeps the record they came with. Best
    /// effort: a record that cannot be written only means a killed download starts over.
    func record(_ task: DownloadTask, offset: Int64) {
        guard offset == 0, let response = task.response as? HTTPURLResponse, (200..<300).contains(response.statusCode),
              let request = task.currentRequest ?? task.originalRequest else { return }
        let resume = DownloadResumeData(request: request, partialFile: partial, resumption: DownloadResumption(offset: 0, response: response))
        try? write(resume)
    }

    /// Writes `resume` to ``resumeData``, readable by its owner only and without the header fields (no credential
    /// lands in the file: `--continue` sends the header fields of its own command line).
    private func write(_ resume: DownloadResumeData) throws {
        var resume = resume
        resume.headers = [:]
        do {
            try PrivateFile.replace(resumeData, with: try resume.encoded())
        } catch let failure as PrivateFile.Failure {
            throw CLIFailure.usage("cannot write \(resumeData.path): \(failure.reason)")
        }
    }

    /// The stored resume data, pointed at ``partial`` (the directory may have moved since) and sending
    /// `request`'s header fields, or `nil` when there is none or its partial file is gone.
    /// - Throws: `CLIFailure` when the file exists but is not Courier resume data.
    func load(sending request: URLRequest, confinedBy confinement: SessionHeaderConfinement) throws -> DownloadResumeData? {
        guard FileManager.default.fileExists(atPath: resumeData.path),
              FileManager.default.fileExists(atPath: partial.path) else { return nil }
        do {
            var resume = try DownloadResumeData(data: Data(contentsOf: resumeData))
            resume.partialFilePath = partial.path
            // The bytes on disk are the ones kept: a record written as the body started says 0, and the file grew
            // after it (a record written at a stop says exactly the file's size).
            if let size = FileStatus.size(atPath: partial.path), size >= 0 {
                resume.resumption.offset = size
            }
            resume.headers = Self.fields(of: request, for: resume.url, confinedBy: confinement)
            return resume
        } catch {
            throw CLIFailure.usage("\(resumeData.path) is not Courier resume data (\(error.localizedDescription)); delete it to start over")
        }
    }

    /// `request`'s header fields for continuing at `url`, the URL the resume data recorded (after redirects): the
    /// credentials, cookies and the fields a `--session` lent (`confinement`) only when it has the same origin as
    /// `request`, as a redirect would have dropped them.
    static func fields(of request: URLRequest, for url: URL, confinedBy confinement: SessionHeaderConfinement) -> [String: String] {
        var fields = request.allHTTPHeaderFields ?? [:]
        let origin = { (url: URL?) in [url?.scheme?.lowercased(), url?.host?.lowercased(), url?.port.map(String.init)] }
        if origin(request.url) != origin(url) {
            fields = fields.filter { !["authorization", "proxy-authorization", "cookie"].contains($0.key.lowercased()) }
        }
        var continuing = URLRequest(url: url)
        continuing.allHTTPHeaderFields = fields
        return confinement.confined(continuing).allHTTPHeaderFields ?? [:]
    }

    /// The start of a download that another program left at ``output`` (a browser, curl, wget), taken over to be
    /// continued as `curl -C -` and `wget -c` do: moved to ``partial``, with resume data that asks for the rest of
    /// `request`'s resource without a validator written to ``resumeData`` (so a stop keeps it resumable). `nil`
    /// when ``output`` is not a regular file with bytes in it.
    /// - Throws: `CLIFailure` when the file cannot be moved; the file system's errors.
    func adoptForeignPartial(of request: URLRequest) throws -> DownloadResumeData? {
        guard let status = FileStatus(path: output.path), status.kind == .regular, status.size > 0
        else { return nil }
        guard !FileManager.default.fileExists(atPath: partial.path) else {
            throw CLIFailure.usage("both \(output.path) and \(partial.path) exist, without resume data: remove the one not to continue")
        }
        // rename(2): one step, and never across file systems (the bytes are not copied).
        guard rename(output.path, partial.path) == 0 else {
            throw CLIFailure.usage("cannot move \(output.path) to \(partial.path) to continue it: \(String(cString: strerror(errno)))")
        }
        do {
            let data = try DownloadResumeData(continuingWithoutValidator: partial, of: request)
            try write(data)
            return data
        } catch {
            // Without its resume data the file would look like Courier's own leftovers: put it back.
            _ = rename(partial.path, output.path)
            throw error
        }
    }

    /// Removes the partial file and the resume data (after a finished download, or a stop before
    /// any byte of the body arrived).
    func removeLeftovers() {
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: resumeData)
        try? FileManager.default.removeItem(at: segments)
    }
}
