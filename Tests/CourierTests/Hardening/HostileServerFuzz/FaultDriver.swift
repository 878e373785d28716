@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches a ``GeneratedCase``'s resource through the façade it names and judges what Courier made of the server's
/// answers. The judgement is the generator's record: whatever Courier delivers as a success (a `200` body, a
/// finished download, `courier download` exiting 0) holds exactly the resource's bytes; a failed download leaves
/// nothing at its destination.
struct FaultDriver: Sendable {
    /// What Courier made of one case.
    enum Outcome: String, Sendable {
        /// The resource, exactly.
        case delivered
        /// Another status than `200` was delivered (a `401`, a `302` not followed, an odd code).
        case otherStatus
        /// An error (after a resumption, if there was one).
        case failed
        /// Delivered after continuing from resume data.
        case resumed
    }

    let server: FaultServer
    let session: URLSessionManager
    let folder: URL
    /// The `courier` executable, or `nil` to send command-line cases through a download task instead.
    let courier: URL?

    /// Runs `generated`: its outcome, or a description of what Courier got wrong.
    func run(_ generated: GeneratedCase) async -> Result<Outcome, Problem> {
        switch generated.client {
        case .session: await viaSession(generated)
        case .operation: await viaOperation(generated)
        case .download: await viaDownloadTask(generated)
        case .commandLine: await viaCommandLine(generated)
        }
    }

    /// Something Courier must never do.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    private func request(_ generated: GeneratedCase) -> URLRequest {
        var request = URLRequest(url: server.url(generated), timeoutInterval: generated.timeout)
        request.setValue(FaultServer.authorization, forHTTPHeaderField: "Authorization")
        return request
    }

    /// `bytes` compared with the resource, as the judgement of a delivered body.
    private func judge(_ bytes: Data, _ generated: GeneratedCase, _ outcome: Outcome, what: String) -> Result<Outcome, Problem> {
        let expected = generated.resource.bytes
        guard bytes != expected else { return .success(outcome) }
        // A gzipped representation may be kept as sent (`courier download` asks for identity), never half and half.
        if generated.resource.gzipped, bytes == generated.resource.representation { return .success(outcome) }
        let firstDifference = zip(bytes, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        return .failure(Problem(description: """
            \(what) holds \(bytes.count) bytes where the resource has \(expected.count)\
            \(firstDifference.map { ", differing from byte \($0)" } ?? "")
            """))
    }

    private func viaSession(_ generated: GeneratedCase) async -> Result<Outcome, Problem> {
        do {
            let (data, response) = try await session.data(for: request(generated))
            guard response.statusCode == 200 else { return .success(.otherStatus) }
            return judge(data, generated, .delivered, what: "a 200 body")
        } catch {
            return .success(.failed)
        }
    }

    private func viaOperation(_ generated: GeneratedCase) async -> Result<Outcome, Problem> {
        let operation = HTTPRequestOperation(request: request(generated))
        operation.transport = Fixtures.transport
        let queue = OperationQueue()
        queue.addOperation(operation)
        await operation.finished()
        guard operation.error == nil, let response = operation.response else { return .success(.failed) }
        guard response.statusCode == 200 else { return .success(.otherStatus) }
        return judge(operation.responseData ?? Data(), generated, .delivered, what: "an operation's 200 body")
    }

    private func viaDownloadTask(_ generated: GeneratedCase) async -> Result<Outcome, Problem> {
        let destination = folder.appendingPathComponent("download-\(generated.number)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let first = await download(to: destination) { session.downloadTask(with: request(generated), destination: $0, completionHandler: $1) }
        if first.error == nil { return judgeDownload(first.response, destination, generated, .delivered) }
        if FileManager.default.fileExists(atPath: destination.path) {
            return .failure(Problem(description: "a failed download was saved (\(String(describing: first.error)))"))
        }
        guard let error = first.error, let resumeData = DownloadTask.resumeData(from: error) else { return .success(.failed) }
        defer {
            if let partial = try? DownloadResumeData(data: resumeData).partialFile {
                try? FileManager.default.removeItem(at: partial)
            }
        }
        let second = await download(to: destination) { session.downloadTask(withResumeData: resumeData, destination: $0, completionHandler: $1) }
        if second.error == nil { return judgeDownload(second.response, destination, generated, .resumed) }
        if FileManager.default.fileExists(atPath: destination.path) {
            return .failure(Problem(description: "a failed resumed download was saved (\(String(describing: second.error)))"))
        }
        return .success(.failed)
    }

    /// Runs the download task `make` creates (from a destination and a completion handler) to its end. As with
    /// URLSession, a download that ends with any status saves that status's body.
    private func download(
        to destination: URL, _ make: (@escaping DownloadTask.Destination, @escaping DownloadTask.CompletionHandler) -> DownloadTask
    ) async -> (response: URLResponse?, error: (any Error)?) {
        await withCheckedContinuation { continuation in
            make({ _, _ in destination }, { response, _, error in continuation.resume(returning: (response, error)) }).resume()
        }
    }

    /// A finished download judged by its status: only a `200` (or a `206` that continued the kept bytes) must hold
    /// the resource.
    private func judgeDownload(_ response: URLResponse?, _ file: URL, _ generated: GeneratedCase, _ outcome: Outcome) -> Result<Outcome, Problem> {
        let status = (response as? HTTPURLResponse)?.statusCode
        guard status == 200 || status == 206 else { return .success(.otherStatus) }
        return judgeFile(file, generated, outcome)
    }

    private func judgeFile(_ file: URL, _ generated: GeneratedCase, _ outcome: Outcome) -> Result<Outcome, Problem> {
        guard let saved = try? Data(contentsOf: file) else {
            return .failure(Problem(description: "a finished download has no file"))
        }
        return judge(saved, generated, outcome, what: "the saved file")
    }

    /// A `courier` session made for the server's origin, holding ``FaultServer/apiKey`` as a header field.
    private func sessionFile() throws -> URL {
        let file = folder.appendingPathComponent("session.json")
        let session: [String: Any] = [
            "format": "courier-session", "version": 1, "origin": "http://127.0.0.1:\(server.port)",
            "headers": ["X-Api-Key": FaultServer.apiKey],
        ]
        try JSONSerialization.data(withJSONObject: session).write(to: file)
        return file
    }

    private func viaCommandLine(_ generated: GeneratedCase) async -> Result<Outcome, Problem> {
        guard courier != nil else { return await viaDownloadTask(generated) }
        let output = folder.appendingPathComponent("courier-\(generated.number).bin")
        defer {
            for suffix in ["", ".part", ".courier-resume"] {
                try? FileManager.default.removeItem(atPath: output.path + suffix)
            }
        }
        do {
            let arguments = [
                "download", server.url(generated).absoluteString, "-o", output.path, "--timeout", "\(generated.timeout)",
                "-H", "Authorization: \(FaultServer.authorization)", "--session-read-only", try sessionFile().path,
            ]
            let first = try await ChildProcess.run("courier", arguments, timeout: .seconds(60))
            if first.terminatedBySignal { return .failure(Problem(description: "courier download was killed by signal \(first.status)")) }
            if first.status == 0 { return judgeFile(output, generated, .delivered) }
            if first.status == 5 { return .success(.failed) }  // verification failed: the file is kept for inspection
            if FileManager.default.fileExists(atPath: output.path) {
                return .failure(Problem(description: "courier download failed (\(first.status)) and left \(output.lastPathComponent)"))
            }
            guard FileManager.default.fileExists(atPath: output.path + ".courier-resume") else {
                return .success(first.status == 3 ? .otherStatus : .failed)
            }
            let second = try await ChildProcess.run("courier", arguments + ["--continue"], timeout: .seconds(60))
            if second.terminatedBySignal { return .failure(Problem(description: "courier download --continue was killed by signal \(second.status)")) }
            if second.status == 0 { return judgeFile(output, generated, .resumed) }
            if second.status == 5 { return .success(.failed) }  // verification failed: the file is kept for inspection
            if FileManager.default.fileExists(atPath: output.path) {
                return .failure(Problem(description: "courier download --continue failed (\(second.status)) and left \(output.lastPathComponent)"))
            }
            return .success(.failed)
        } catch {
            return .failure(Problem(description: "courier could not be run: \(error)"))
        }
    }
}
