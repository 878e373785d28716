import Foundation
import Testing

/// Nothing above `HTTPTransport` names the engine: sessions, operations, the exchange and its stages reach
/// AsyncHTTPClient only through `DefaultTransport`, so another transport (StubTransport, a user's) replaces it.
@Suite("The engine stays behind the transport seam")
struct EngineSeamTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Courier")

    @Test func noCodeOutsideTransportNamesAsyncHTTPClient() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var offenders: [String] = []
        var checked = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            let relative = String(file.path.dropFirst(Self.sources.path.count + 1))
            guard !relative.hasPrefix("Transport/") else { continue }
            checked += 1
            let code = try String(contentsOf: file, encoding: .utf8)
                .split(separator: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            for line in code where line.contains("AsyncHTTPClient") {
                offenders.append("\(relative): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 50, "the sources were found")
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
