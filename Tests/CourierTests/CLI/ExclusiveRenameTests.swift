import Foundation
import Testing
@testable import courier

/// The rename `courier batch` gives a verified file its name with: it never replaces what has the name.
@Suite("courier batch: the exclusive rename")
struct ExclusiveRenameTests {
    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exclusive-rename-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aFreeNameIsTakenAndTheOldNameIsGone() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let part = folder.appendingPathComponent("a.bin.part"), final = folder.appendingPathComponent("a.bin")
        try Data("new".utf8).write(to: part)
        #expect(ExclusiveRename.rename(part.path, to: final.path) == .renamed)
        #expect(try Data(contentsOf: final) == Data("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: part.path))
    }

    @Test func aTakenNameIsLeftAsItWasAndSoIsTheFile() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let part = folder.appendingPathComponent("a.bin.part"), final = folder.appendingPathComponent("a.bin")
        try Data("new".utf8).write(to: part)
        try Data("the user's".utf8).write(to: final)
        #expect(ExclusiveRename.rename(part.path, to: final.path) == .taken)
        #expect(try Data(contentsOf: final) == Data("the user's".utf8))
        #expect(try Data(contentsOf: part) == Data("new".utf8))
        // A directory or a dangling link of that name is taken too.
        let directory = folder.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        #expect(ExclusiveRename.rename(part.path, to: directory.path) == .taken)
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.appendingPathComponent("nowhere").path)
        #expect(ExclusiveRename.rename(part.path, to: link.path) == .taken)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("nowhere").path))
    }

    @Test func aMissingFileIsNotDone() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(ExclusiveRename.rename(folder.appendingPathComponent("missing").path, to: folder.appendingPathComponent("b").path) == .notDone)
    }
}
