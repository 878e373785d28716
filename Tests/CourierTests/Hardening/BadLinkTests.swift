#if os(Linux)
import CourierTestServer
import Foundation
import Testing

/// Issue #21, item 5: downloads and uploads by `courier` over a link that loses packets, is slow, delays and reorders
/// them, or goes down midway (``LinkUnderTest``: a link into a network namespace made by the test, the server here,
/// the client there). Each transfer must arrive with the SHA-256 of its source; a download cut off by the outage
/// fails when `--timeout` says (within 10 %) and `--continue` finishes it.
///
/// `COURIER_BADLINK_DOWNLOAD_MIB` and `COURIER_BADLINK_UPLOAD_MIB` set the sizes (default 32 and 8, CI's run;
/// `scripts/bad-links` sends 256 and 64).
@Suite(
    "Hardening: transfers over bad links",
    .serialized,
    .enabled("needs root, iproute2 (ip, tc) and iptables") { LinkUnderTest.isSupported }
)
struct BadLinkTests {
    static var downloadSize: Int { (ProcessInfo.processInfo.environment["COURIER_BADLINK_DOWNLOAD_MIB"].flatMap(Int.init) ?? 32) << 20 }
    static var uploadSize: Int { (ProcessInfo.processInfo.environment["COURIER_BADLINK_UPLOAD_MIB"].flatMap(Int.init) ?? 8) << 20 }

    @Test(.timeLimit(.minutes(30)))
    func fivePercentLoss() async throws {
        try await Self.transfers(under: .loss(percent: 5))
    }

    @Test(.timeLimit(.minutes(30)))
    func twoMegabytesASecond() async throws {
        try await Self.transfers(under: .rate(bytesPerSecond: 2_000_000))
    }

    @Test(.timeLimit(.minutes(30)))
    func delayWithJitter() async throws {
        try await Self.transfers(under: .delay(milliseconds: 200, jitter: 50))
    }

    @Test(.timeLimit(.minutes(30)))
    func reordering() async throws {
        try await Self.transfers(under: .reordering(percent: 25))
    }

    /// The link goes down midway through a throttled download: `courier download --timeout 3` gives up 3 s after the
    /// last byte, keeping what it has; with the link back, `--continue` fetches the rest.
    @Test(.timeLimit(.minutes(10)))
    func theLinkGoesDownAndComesBack() async throws {
        let size = Self.downloadSize
        let timeout = 3.0
        try await Self.withServer { link, server, folder in
            let url = server.baseURL.absoluteString + "/download/\(size)?digest=repr&rate=\(max(size / 4, 1 << 20))"
            let file = folder.appendingPathComponent("outage.bin")
            let child = try ChildProcess(
                "courier", ["download", url, "-o", file.path, "--timeout", String(timeout)], launcher: .inNamespace(link.namespace)
            )
            try await child.waitFor("ETA ")
            #expect(await fileGrows(URL(fileURLWithPath: file.path + ".part"), beyond: 256 << 10), "the download is under way")
            try link.setUp(false)
            let down = ContinuousClock.now
            let cut = try await child.finish(timeout: .seconds(60))
            let waited = Self.seconds(ContinuousClock.now - down)
            try link.setUp(true)
            #expect(cut.status == 4, "\(cut.standardError)")
            #expect(cut.standardError.contains("resume with"), "\(cut.standardError)")
            #expect(abs(waited - timeout) <= timeout * 0.1, "the idle timeout of \(timeout) s fired after \(waited) s")

            // The route comes back with the link's carrier.
            #expect(await eventually { link.isCarrying }, "the link carries again")
            let resumed = try await ChildProcess.run(
                "courier", ["download", url, "-o", file.path, "--continue", "--timeout", "30"], launcher: .inNamespace(link.namespace),
                timeout: .seconds(600)
            )
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardError.contains("continuing"), "\(resumed.standardError)")
            let digest = try sha256Hex(ofFile: file)
            #expect(digest == TestPayload.sha256Hex(count: size, seed: 0))
            print("bad link, down and up: \(size >> 20) MiB, timeout fired after \(String(format: "%.2f", waited)) s of \(timeout) s, resumed, sha256 \(digest)")
        }
    }

    /// A download of ``downloadSize`` and an upload of ``uploadSize`` by `courier` under `condition`, each checked
    /// by SHA-256 (the download against the generator's bytes, the upload by the server's digest of what it received).
    static func transfers(under condition: LinkCondition) async throws {
        try await withServer(under: condition) { link, server, folder in
            let size = downloadSize
            let file = folder.appendingPathComponent("download.bin")
            var started = ContinuousClock.now
            let download = try await ChildProcess.run(
                "courier", ["download", server.baseURL.absoluteString + "/download/\(size)?digest=repr", "-o", file.path, "--timeout", "60"],
                launcher: .inNamespace(link.namespace), timeout: .seconds(1200)
            )
            let downloadTime = seconds(ContinuousClock.now - started)
            #expect(download.status == 0, "\(condition): \(download.standardError.suffix(2000))\n\(link.queueStatistics())")
            guard download.status == 0 else { return }
            let downloaded = try sha256Hex(ofFile: file)
            #expect(downloaded == TestPayload.sha256Hex(count: size, seed: 0), "\(condition)")
            try? FileManager.default.removeItem(at: file)

            let source = folder.appendingPathComponent("upload.bin")
            try TestPayload.bytes(count: uploadSize, seed: 7).write(to: source)
            let sent = try sha256Hex(ofFile: source)
            started = ContinuousClock.now
            let upload = try await ChildProcess.run(
                "courier", ["post", server.baseURL.absoluteString + "/upload", "file@\(source.path)", "--timeout", "60", "--check-status"],
                launcher: .inNamespace(link.namespace), timeout: .seconds(1200)
            )
            let uploadTime = seconds(ContinuousClock.now - started)
            #expect(upload.status == 0, "\(condition): \(upload.standardError.suffix(2000))\n\(link.queueStatistics())")
            let answer = try JSONSerialization.jsonObject(with: Data(upload.standardOutput.utf8)) as? [String: Any]
            let part = (answer?["parts"] as? [[String: Any]])?.first
            #expect(part?["sha256"] as? String == sent, "\(condition): \(upload.standardOutput.prefix(500))")
            #expect(part?["size"] as? Int == uploadSize, "\(condition)")
            // Proof the condition was there: the rules dropped packets of these transfers, or the relay held them.
            var proof = ""
            if case .loss = condition {
                let count = try link.droppedPackets()
                #expect(count > 0, "no packet was dropped")
                proof = ", \(count) packets dropped"
            } else if let relay = link.relay {
                #expect(relay.heldPackets > 0, "the relay held no packet")
                proof = ", \(relay.heldPackets) of \(relay.carriedPackets) packets held"
                if case .reordering = condition {
                    // And the client's TCP saw them: segments arrived ahead of a gap.
                    let outOfOrder = try link.namespaceTCPCounter("TCPOFOQueue") ?? 0
                    #expect(outOfOrder > 0, "the client's TCP received nothing out of order")
                    proof += ", \(outOfOrder) segments arrived out of order"
                }
            }
            print("bad link, \(condition)\(proof): download \(size >> 20) MiB in \(String(format: "%.1f", downloadTime)) s, sha256 \(downloaded); "
                  + "upload \(uploadSize >> 20) MiB in \(String(format: "%.1f", uploadTime)) s, sha256 \(sent)")
        }
    }

    /// A link under `condition`, the test server listening on its host side, and a folder, all removed afterwards.
    static func withServer(under condition: LinkCondition? = nil, _ body: (LinkUnderTest, TestServer, URL) async throws -> Void) async throws {
        try await LinkUnderTest.with(condition) { link in
            let server = try await TestServer.start(host: link.hostAddress)
            let folder = try Fixtures.temporaryDirectory("bad-link")
            var failure: (any Error)?
            do {
                try await body(link, server, folder)
            } catch {
                failure = error
            }
            try? FileManager.default.removeItem(at: folder)
            try? await server.shutdown()
            if let failure { throw failure }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

#endif
