import Foundation
import Testing
@testable import Courier

/// `FileStatus` reports what `FileManager.attributesOfItem` reports (kind, size, modification date to the same
/// `Double`), so that records written with either compare equal (`courier batch`'s finished files).
@Suite("Storage: a file's status from one stat(2)")
struct FileStatusTests {
    @Test func itAgreesWithFileManager() throws {
        let folder = try Fixtures.temporaryDirectory("file-status")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("data.bin")
        for size in [0, 1, 4_097, 1_000_003] {
            try Data(repeating: 7, count: size).write(to: file)
            let status = try #require(FileStatus(path: file.path))
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect(status.kind == .regular)
            #expect(status.size == Int64(size))
            #expect(status.size == (attributes[.size] as? NSNumber)?.int64Value)
            let modified = try #require(attributes[.modificationDate] as? Date)
            #expect(status.modified.timeIntervalSince1970 == modified.timeIntervalSince1970, "\(status.modified) against \(modified)")
        }
        #expect(FileStatus.isRegularFile(atPath: file.path))
        #expect(FileStatus(path: folder.path)?.kind == .directory)
        #expect(!FileStatus.isRegularFile(atPath: folder.path))
        #expect(FileStatus(path: "/dev/null")?.kind == .other)
        #expect(FileStatus(path: folder.appendingPathComponent("missing").path) == nil)
        #expect(FileStatus.size(atPath: folder.appendingPathComponent("missing").path) == nil)
    }
}
