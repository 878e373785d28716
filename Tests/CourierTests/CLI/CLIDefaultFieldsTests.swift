import Courier
import Foundation
import Testing
@testable import courier

/// The fields `courier` sends that the user did not write, as httpbin echoes them: its own `User-Agent` with the
/// release's number on every command, no `Accept-Language`, and no body from an empty standard input.
@Suite(
    "courier's default fields (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct CLIDefaultFieldsTests {
    private static func headers(_ data: Data) throws -> [String: String] {
        try #require(try SessionFixtures.json(data)["headers"] as? [String: String])
    }

    @Test func everyCommandSendsCourierAndItsVersionAndNoAcceptLanguage() async throws {
        #expect(CourierCommand.userAgent == "courier/\(CourierCommand.versionNumber)" && CourierCommand.versionNumber != "0")
        let get = try await CLIPipeTests.courier(["get", "-p", "b", try CLIPipeTests.url("/headers")])
        let sent = try Self.headers(Data(get.standardOutput.utf8))
        #expect(sent["User-Agent"] == CourierCommand.userAgent, "\(sent)")
        #expect(sent["Accept-Language"] == nil, "\(sent)")
        let form = try await CLIPipeTests.courier(["post", "--form", "-p", "b", try CLIPipeTests.url("/anything"), "a=1"])
        #expect(try Self.headers(Data(form.standardOutput.utf8))["User-Agent"] == CourierCommand.userAgent, "\(form.standardOutput)")

        let folder = Fixtures.temporaryFile("cli-agent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let downloaded = folder.appendingPathComponent("one.json")
        let download = try await CLIPipeTests.courier(["download", "-o", downloaded.path, try CLIPipeTests.url("/headers")])
        #expect(download.status == 0, "\(download.standardError)")
        #expect(try Self.headers(try Data(contentsOf: downloaded))["User-Agent"] == CourierCommand.userAgent)
        let list = folder.appendingPathComponent("list.txt")
        try Data("\(try CLIPipeTests.url("/headers"))\ttwo.json\n".utf8).write(to: list)
        let batch = try await CLIPipeTests.courier(["batch", list.path, "--output-dir", folder.path])
        #expect(batch.status == 0, "\(batch.standardError)")
        let batched = try Self.headers(try Data(contentsOf: folder.appendingPathComponent("two.json")))
        #expect(batched["User-Agent"] == CourierCommand.userAgent && batched["Accept-Language"] == nil, "\(batched)")

        // -H replaces it; an item replaces it too; 'User-Agent:' still removes it.
        let replaced = try await CLIPipeTests.courier(["get", "-p", "b", "-H", "User-Agent: mine/1", try CLIPipeTests.url("/headers"), "X-A:1"])
        #expect(try Self.headers(Data(replaced.standardOutput.utf8))["User-Agent"] == "mine/1")
        // Accept-Language when the user asks for it.
        let asked = try await CLIPipeTests.courier(["get", "-p", "b", try CLIPipeTests.url("/headers"), "Accept-Language:fr"])
        #expect(try Self.headers(Data(asked.standardOutput.utf8))["Accept-Language"] == "fr")
    }

    @Test func anEmptyStandardInputIsNoBody() async throws {
        let empty = try await CLIPipeTests.courier(["get", "-p", "Hb", try CLIPipeTests.url("/anything")], standardInput: Data())
        #expect(empty.status == 0, "\(empty.standardError)")
        #expect(!empty.standardOutput.contains("Content-Length") && !empty.standardOutput.contains("Content-Type: application/octet-stream"),
                "\(empty.standardOutput)")
        let echoed = try CLIRequestTests.json(empty)
        #expect((echoed["headers"] as? [String: String])?["Content-Type"] == nil, "\(echoed)")
        // Bytes on standard input are still a body, and --raw '' an empty one.
        let piped = try await CLIPipeTests.courier(["post", "-p", "b", try CLIPipeTests.url("/anything")], standardInput: Data("x".utf8))
        #expect((try CLIRequestTests.json(piped)["data"] as? String) == "x")
        let raw = try await CLIPipeTests.courier(["post", "-p", "H", "--offline", "--raw", "", try CLIPipeTests.url("/anything")])
        #expect(raw.standardOutput.contains("Content-Length: 0"), "\(raw.standardOutput)")
    }
}
