import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// File parts take their type from the system's type database (`mime.types` on Linux), as AFNetworking
/// asked the operating system; Courier's own table is the fallback.
@Suite("Multipart: MIME types from the system")
struct MIMETypeTests {
    @Test func theDatabaseFormatIsReadAsPythonReadsIt() {
        let types = MIMEType.parseDatabase("""
        # comment line
        application/x-first\tone two   # trailing comment
        text/Plain  TXT
        application/x-second two

        not-a-type ext
        """)
        #expect(types == ["one": "application/x-first", "two": "application/x-second", "txt": "text/plain"])
    }

    /// Python's `mimetypes` reads the same files with its own code: for every extension it finds there,
    /// Courier must agree.
    @Test func courierAgreesWithPythonsMimetypesOnTheSystemDatabase() throws {
        try #require(FileManager.default.fileExists(atPath: "/etc/mime.types"), "install Debian's media-types package (apt-get install media-types)")
        let extensions = ["cer", "crt", "der", "pem", "json", "jpg", "png", "svg", "epub", "wasm", "mp4", "csv", "pdf", "xhtml"]
        let answers = try Self.pythonTypes(extensions)
        #expect(answers["cer"] != nil, "Python found no type for .cer")
        for (pathExtension, type) in answers {
            #expect(MIMEType.forPathExtension(pathExtension) == type, ".\(pathExtension)")
            #expect(MIMEType.forPathExtension(pathExtension.uppercased()) == type, ".\(pathExtension.uppercased())")
        }
        #expect(MIMEType.forPathExtension("no-such-extension") == "application/octet-stream")
    }

    @Test func aFilePartCarriesTheSystemsType() async throws {
        let expected = try #require(try Self.pythonTypes(["cer"])["cer"])
        let file = Fixtures.temporaryFile("\(UUID().uuidString).cer")
        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: try await Fixtures.url("/upload").absoluteString, parameters: nil) { form in
            try form.appendPart(withFileURL: file, name: "certificate")
        }
        let result = try await Exchange(request: request, configuration: .init(transport: Fixtures.transport)).result()
        let parts = try #require(try Fixtures.json(result)["parts"] as? [[String: Any]])
        #expect(parts.first?["content_type"] as? String == expected)
    }

    /// `mimetypes.guess_type` for each extension that Python's reading of the system files knows.
    static func pythonTypes(_ extensions: [String]) throws -> [String: String] {
        let script = """
        import mimetypes, sys
        db = mimetypes.MimeTypes(filenames=[f for f in mimetypes.knownfiles if __import__('os').path.exists(f)])
        for ext in sys.argv[1:]:
            found = db.types_map[True].get('.' + ext)
            if found and any(ext in open(f).read().split() for f in mimetypes.knownfiles if __import__('os').path.exists(f)):
                print(ext, found)
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + extensions
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed")
        var types: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2 { types[String(fields[0])] = String(fields[1]) }
        }
        return types
    }
}
