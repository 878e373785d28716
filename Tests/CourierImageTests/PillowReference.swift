import Foundation
import Testing

/// The images scripts/pillow-reference writes with Pillow and pypng, and the RGBA pixels Pillow decodes each one to.
/// Written once per test run into a temporary folder.
enum PillowReference {
    /// One image and its reference pixels.
    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let file: String
        let reference: String
        let width: Int
        let height: Int
        /// The largest difference allowed in any channel (JPEG decoders round their transforms differently).
        let tolerance: Int
        /// The size to ask for a scaled decode, when the reference is one.
        let minimum: [Int]?
        let note: String
        /// How many frames the reference holds (their RGBA one after the other), and each one's duration in
        /// milliseconds for an animation.
        let frames: Int
        let durations: [Int]?
        /// For a resize reference: the size Pillow's box filter resized the decoded image to.
        let resize: [Int]?

        var testDescription: String { name }

        func data() throws -> Data { try Data(contentsOf: PillowReference.folder.appendingPathComponent(file)) }
        func referencePixels() throws -> [UInt8] { Array(try Data(contentsOf: PillowReference.folder.appendingPathComponent(reference))) }
    }

    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-pillow-\(getpid())")

    /// The manifest, or why it could not be written (the script's output).
    static let manifest: Result<[Entry], ReferenceFailure> = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/pillow-reference")
        process.arguments = ["generate", folder.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                return .failure(ReferenceFailure(message: String(decoding: printed, as: UTF8.self)))
            }
            let data = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
            return .success(try JSONDecoder().decode([Entry].self, from: data))
        } catch {
            return .failure(ReferenceFailure(message: "\(error)"))
        }
    }()

    /// The decoding references (none when the script failed: `theReferenceImagesWereWritten` then fails and says
    /// why).
    static var entries: [Entry] { ((try? manifest.get()) ?? []).filter { $0.resize == nil } }

    /// The resizing references.
    static var resizes: [Entry] { ((try? manifest.get()) ?? []).filter { $0.resize != nil } }

    /// A progressive JPEG cut short, and Pillow's decoding of the cut (written into previews.json).
    struct PreviewCut: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let file: String
        /// How many of the file's bytes the cut keeps: up to a scan's SOS marker, or all of them.
        let cut: Int
        /// Where each of the file's scans starts (its SOS marker).
        let scanStarts: [Int]
        let reference: String

        var testDescription: String { name }

        func data() throws -> Data { try Data(contentsOf: PillowReference.folder.appendingPathComponent(file)) }
        func referencePixels() throws -> [UInt8] { Array(try Data(contentsOf: PillowReference.folder.appendingPathComponent(reference))) }
    }

    /// The preview cuts (none when the script failed).
    static var previewCuts: [PreviewCut] {
        guard (try? manifest.get()) != nil,
              let data = try? Data(contentsOf: folder.appendingPathComponent("previews.json")) else { return [] }
        return (try? JSONDecoder().decode([PreviewCut].self, from: data)) ?? []
    }

    static func entry(_ name: String) throws -> Entry {
        try #require(entries.first { $0.name == name }, "no reference image \(name)")
    }

    struct ReferenceFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { "scripts/pillow-reference failed (python3-venv, and PyPI for Pillow and pypng): \(message)" }
    }
}

/// Why the image suites are skipped on a machine without the system's image libraries (CourierImage then builds
/// without them: see Package.swift); `.ci/run` fails when it sees these words.
enum ImageLibraries {
    static let skipMessage = Comment(rawValue: "CourierImage was built without the system's image libraries: apt-get install libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev, then touch Package.swift")
}
