import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request steps: JSON GET, form and JSON POST, multipart upload with progress, all through
/// the session manager (`HTTPSessionManager`).
extension Tour {
    func jsonGet(_ log: TourLog) async throws -> String {
        let (object, response) = try await session.get("json")
        let slideshow = try dictionary(try dictionary(object, "the body")["slideshow"], "slideshow")
        guard let title = slideshow["title"] as? String else { throw TourStepFailure("no slideshow title in \(slideshow)") }
        let type = response.value(forHTTPHeaderField: "Content-Type") ?? "?"
        return "GET /json → \(response.statusCode) \(type), decoded: slideshow \"\(title)\""
    }

    func formPost(_ log: TourLog) async throws -> String {
        let (object, _) = try await session.post("post", parameters: ["name": "Courier", "tags": ["swift", "http"]])
        let form = try dictionary(try dictionary(object, "the echo")["form"], "form")
        guard form["name"] as? String == "Courier" else { throw TourStepFailure("the server saw the form \(form)") }
        let sent = lastRecorded("/post")?.header("Content-Type") ?? "?"
        return "POST /post as \(sent): name=Courier&tags[]=swift&tags[]=http echoed back"
    }

    func jsonPost(_ log: TourLog) async throws -> String {
        let manager = HTTPSessionManager(baseURL: servers.plain.baseURL, configuration: .ephemeral)
        defer { manager.invalidateSessionCancelingTasks(false) }
        manager.requestSerializer = JSONRequestSerializer()
        let (object, _) = try await manager.post("post", parameters: ["answer": 42, "nested": ["ok": true]])
        let echoed = try dictionary(try dictionary(object, "the echo")["json"], "json")
        guard echoed["answer"] as? Int == 42 else { throw TourStepFailure("the server saw the JSON \(echoed)") }
        let sent = lastRecorded("/post")?.header("Content-Type") ?? "?"
        return "POST /post as \(sent): {\"answer\":42,\"nested\":{\"ok\":true}} echoed back"
    }

    func multipartUpload(_ log: TourLog) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tour-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let block = Data((0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        let payload = Data(repeatElement(block, count: 32).joined())
        try payload.write(to: file)

        let request = try session.requestSerializer.multipartFormRequest(
            method: "POST", urlString: try url("/upload").absoluteString, parameters: ["note": "tour"]
        ) { form in
            try form.appendPart(withFileURL: file, name: "file")
        }
        // Prints a line each time the upload passes another quarter of the body.
        let quarterShown = Atomic<Int>(0)
        let updates = Atomic<Int>(0)
        let task = session.uploadTask(withStreamedRequest: request, progress: { progress in
            updates.add(1, ordering: .relaxed)
            guard progress.totalUnitCount > 0 else { return }
            let quarter = Int(progress.completedUnitCount * 4 / progress.totalUnitCount)
            guard quarter > 0, quarterShown.exchange(quarter, ordering: .relaxed) < quarter else { return }
            let percentage = ProgressLine.percentage(completed: progress.completedUnitCount, total: progress.totalUnitCount) ?? "?"
            log.note("↑ \(ProgressLine.bytes(progress.completedUnitCount)) of \(ProgressLine.bytes(progress.totalUnitCount)) sent (\(percentage))")
        }, completionHandler: nil)
        let data = try await task.value
        let response = try await task.completedResponse
        let echo = try dictionary(try session.responseSerializer.responseObject(for: response, data: data), "the upload summary")
        let parts = echo["parts"] as? [[String: Any]] ?? []
        let expected = TourDigest.sha256(payload)
        guard let part = parts.first(where: { $0["name"] as? String == "file" }) else { throw TourStepFailure("no file part in \(parts)") }
        guard part["sha256"] as? String == expected else { throw TourStepFailure("the server's SHA-256 of the part is \(part["sha256"] ?? "?"), not \(expected)") }
        guard quarterShown.load(ordering: .relaxed) == 4 else { throw TourStepFailure("upload progress stopped at quarter \(quarterShown.load(ordering: .relaxed))") }
        return "\(ProgressLine.bytes(Int64(payload.count))) file part and a field in \(updates.load(ordering: .relaxed)) progress updates; the server's SHA-256 \(expected.prefix(16))… matches"
    }
}
