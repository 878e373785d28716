import Foundation
import Testing
@testable import courier

/// The name `courier download` gives a file without `-o`: `Content-Disposition` made safe, unit by unit and end to end
/// against httpbin's `/response-headers` (which sends the header it is asked for), plus request items read from files.
@Suite("courier download naming")
struct ContentDispositionNameTests {
    @Test(arguments: [
        (#"attachment; filename="report.csv""#, "report.csv"),
        (#"attachment; filename=plain.txt"#, "plain.txt"),
        (#"attachment; filename="../../etc/x""#, "x"),
        // In a quoted string a backslash escapes the next character (RFC 9110), so no separator is left.
        (#"attachment; filename="..\..\windows\evil.dll""#, "windowsevil.dll"),
        (#"attachment; filename=..\..\windows\evil.dll"#, "evil.dll"),
        (#"attachment; filename=".bashrc""#, "bashrc"),
        (#"attachment; filename="..""#, nil),
        (#"attachment; filename="a\"b.txt""#, "a\"b.txt"),
        (#"attachment; filename="fallback.txt"; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.txt"#, "naïve résumé.txt"),
        (#"attachment; filename*=UTF-8''..%2F..%2Fescape.txt"#, "escape.txt"),
        ("attachment; filename=\"tab\there\u{7}.txt\"", "tabhere.txt"),
        ("inline", nil),
        // Dots and spaces in turn must not leave "." or ".." (or a hidden file) behind.
        (#"attachment; filename=". .""#, nil),
        (#"attachment; filename=". ..""#, nil),
        (#"attachment; filename=". .bashrc""#, "bashrc"),
        (#"attachment; filename*=UTF-8''.%20.."#, nil),
    ] as [(String, String?)])
    func theProposedNameIsMadeSafe(header: String, expected: String?) {
        #expect(ContentDispositionName.filename(in: header) == expected)
    }

    @Test func aVeryLongNameIsCut() throws {
        let name = try #require(ContentDispositionName.filename(in: "attachment; filename=\"\(String(repeating: "é", count: 300)).bin\""))
        #expect(name.utf8.count <= 255)
    }
}

struct SafeFileNameTests {
    @Test(arguments: [
        ("http://h/files/report.csv", "report.csv"),
        ("http://h/x/..%2F..%2Fetc%2Fpasswd", "passwd"),
        ("http://h/x/..%5C..%5Cevil.dll", "evil.dll"),
        ("http://h/%2E%2E", "index.html"),
        ("http://h/..", "index.html"),
        ("http://h/", "index.html"),
        ("http://h", "index.html"),
        ("http://h/dir/", "dir"),
        ("http://h/.bashrc", "bashrc"),
        ("http://h/a%20b.txt?x=1", "a b.txt"),
        ("http://h/%0Aline%00.txt", "line.txt"),
    ])
    func theURLsNameIsMadeSafe(url: String, expected: String) throws {
        #expect(SafeFileName.forURL(try #require(URL(string: url))) == expected)
    }
}

@Suite(
    "courier download naming (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct CLIDownloadNamingTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-naming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func download(_ disposition: String, in folder: URL, _ extra: [String] = []) async throws -> ChildProcess.Outcome {
        var components = try #require(URLComponents(string: try CLIPipeTests.url("/response-headers")))
        components.queryItems = [URLQueryItem(name: "Content-Disposition", value: disposition)]
        let url = try #require(components.url).absoluteString
        return try await ChildProcess.run("courier", ["download", url] + extra, currentDirectory: folder)
    }

    @Test func aHostileNameStaysInTheCurrentDirectory() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try await Self.download(#"attachment; filename="../../etc/courier-x""#, in: folder)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("saved \(folder.appendingPathComponent("courier-x").path)"), "\(outcome.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("courier-x").path))
        #expect(!FileManager.default.fileExists(atPath: folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("etc/courier-x").path))
    }

    /// The URL's own last segment is a name the server chose too: `..%2F` in it must not lead out of the directory.
    @Test func aHostileURLNameStaysInTheCurrentDirectory() async throws {
        let parent = try Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "courier-escape-\(UUID().uuidString)"
        let url = try CLIPipeTests.url("/anything/..%2F..%2F\(name)")
        let outcome = try await ChildProcess.run("courier", ["download", url], currentDirectory: folder)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(outcome.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: parent.appendingPathComponent(name).path), "written two directories up")
    }

    @Test func aDirectoryOfTheServersNameIsNeverReplaced() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = folder.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: directory.appendingPathComponent("main.swift"))
        let outcome = try await Self.download(#"attachment; filename="src""#, in: folder, ["--force"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("src is taken"), "\(outcome.standardError)")
        #expect(try Data(contentsOf: directory.appendingPathComponent("main.swift")) == Data("keep".utf8))
        #expect(outcome.standardOutput.contains("saved \(folder.appendingPathComponent("src-1").path)"), "\(outcome.standardOutput)")
    }

    /// Without `-o` the name is chosen once the response is there: a taken one gets `-1`, `-2`… (as HTTPie), a file
    /// of the URL's name is no obstacle (nor replaced, even with `--force`) when the server names the file otherwise.
    @Test func anExistingFileIsNotOverwrittenWithoutForce() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let existing = folder.appendingPathComponent("report.csv")
        try Data("mine".utf8).write(to: existing)
        let urlNamed = folder.appendingPathComponent("response-headers")
        try Data("mine too".utf8).write(to: urlNamed)

        let kept = try await Self.download(#"attachment; filename="report.csv""#, in: folder)
        #expect(kept.status == 0, "\(kept.standardError)")
        #expect(try Data(contentsOf: existing) == Data("mine".utf8), "the user's file is untouched")
        #expect(kept.standardError.contains("report.csv is taken"), "\(kept.standardError)")
        #expect(kept.standardOutput.contains("saved \(folder.appendingPathComponent("report-1.csv").path)"), "\(kept.standardOutput)")
        let second = try await Self.download(#"attachment; filename="report.csv""#, in: folder)
        #expect(second.standardOutput.contains("saved \(folder.appendingPathComponent("report-2.csv").path)"), "\(second.standardOutput)")

        let other = try await Self.download(#"attachment; filename="other.csv""#, in: folder, ["--force"])
        #expect(other.status == 0, "the URL's name is taken, the server's is not: \(other.standardError)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("other.csv").path))
        #expect(try Data(contentsOf: urlNamed) == Data("mine too".utf8), "the file of the URL's name is untouched")

        let byURL = try await Self.download("inline", in: folder)
        #expect(byURL.standardOutput.contains("saved \(folder.appendingPathComponent("response-headers-1").path)"), "\(byURL.standardOutput)")
        #expect(try Data(contentsOf: urlNamed) == Data("mine too".utf8))

        let forced = try await Self.download(#"attachment; filename="report.csv""#, in: folder, ["--force"])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(try Data(contentsOf: existing) != Data("mine".utf8))
    }

    @Test(arguments: [("report.csv", "report-1.csv"), ("archive.tar.gz", "archive.tar-1.gz"), ("README", "README-1"), (".profile", ".profile-1")])
    func aTakenNameGetsANumber(name: String, expected: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data().write(to: folder.appendingPathComponent(name))
        #expect(ServerNamedTarget.firstFreeName(beside: folder.appendingPathComponent(name)).lastPathComponent == expected)
    }

    @Test func itemsReadFromFiles() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let note = folder.appendingPathComponent("note.txt")
        let json = folder.appendingPathComponent("tags.json")
        try Data("line one\nline two".utf8).write(to: note)
        try Data(#"["a", {"b": 2}]"#.utf8).write(to: json)
        let outcome = try await CLIPipeTests.courier(["post", try CLIPipeTests.url("/post"), "note=@\(note.path)", "tags:=@\(json.path)"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let sent = try #require(try CLIRequestTests.json(outcome)["json"] as? [String: Any])
        #expect(sent["note"] as? String == "line one\nline two")
        #expect((sent["tags"] as? [Any])?.count == 2)
        let missing = try await CLIPipeTests.courier(["post", try CLIPipeTests.url("/post"), "note=@/nonexistent/file"])
        #expect(missing.status == 2)
    }
}
