import Courier
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files `courier batch` downloaded and verified, kept in `.courier-batch-done` in the output directory (one JSON
/// line per file, appended as each one finishes): a second run of the same batch skips exactly those, while they
/// still have the size and modification time they had when they were verified, and counts them as done.
///
/// A file of an output's name that is not in this record (the user's own, or one edited since) is not Courier's to
/// skip or to replace: the download goes to the first free name beside it (``BatchRun/placeVerified(_:at:replacing:)``),
/// as `courier download` does without `-o`.
final class BatchFinishedFiles: Sendable {
    /// One finished file.
    struct Entry: Codable, Equatable {
        /// The URL downloaded.
        let url: String
        /// The output the batch file asked for.
        let output: String
        /// Where the verified file was saved (the output, or a free name beside it).
        let saved: String
        /// Its size and modification time once saved: a file that no longer has both was changed since.
        let size: Int64
        let modified: Double

        /// The entry as one line of JSON, as `JSONEncoder` would write it (keys in another order, `/` unescaped),
        /// for a finite ``modified``. Written here because `JSONEncoder` cost a batch of 1,000 small files about 2 %
        /// of its CPU for these five fields, one line per file.
        func jsonLine() -> Data {
            var text = "{\"url\":"
            Self.appendJSONString(url, to: &text)
            text += ",\"output\":"
            Self.appendJSONString(output, to: &text)
            text += ",\"saved\":"
            Self.appendJSONString(saved, to: &text)
            // Swift's description of a `Double` is the shortest text that reads back as the same value.
            text += ",\"size\":\(size),\"modified\":\(modified)}"
            return Data(text.utf8)
        }

        /// `string` as a JSON string (RFC 8259 §7): quotation mark, reverse solidus and control characters escaped.
        static func appendJSONString(_ string: String, to text: inout String) {
            text.append("\"")
            defer { text.append("\"") }
            // The usual path or URL has nothing to escape: appended whole, not scalar by scalar.
            if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                text.append(string)
                return
            }
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text.append("\\\"")
                case "\\": text.append("\\\\")
                case "\n": text.append("\\n")
                case "\r": text.append("\\r")
                case "\t": text.append("\\t")
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
    }

    /// The record's file.
    let file: URL
    /// The encoder of a line ``Entry/jsonLine()`` cannot write.
    private let encoder = JSONEncoder()
    /// The entries by URL and output, latest last (a batch of many files asks once per file), and the record's file
    /// once opened for appending (kept open: a batch of small files records hundreds a second).
    private let state: Mutex<State>

    private struct State {
        var entries: [String: [Entry]]
        var descriptor: Int32?
    }

    /// The record of the batches run into `directory` (an unreadable or malformed line is ignored, as is a record
    /// larger than 16 MiB: the files are then downloaded again, never skipped unchecked).
    init(directory: URL) {
        file = directory.appendingPathComponent(".courier-batch-done")
        let lines = PrivateFile.contents(of: file, atMost: 16 << 20)?.split(separator: UInt8(ascii: "\n")) ?? []
        let decoder = JSONDecoder()
        let read = lines.compactMap { try? decoder.decode(Entry.self, from: Data($0)) }
        state = Mutex(State(entries: Dictionary(grouping: read) { Self.key($0.url, $0.output) }))
    }

    deinit {
        if let descriptor = state.withLock({ $0.descriptor }) { close(descriptor) }
    }

    private static func key(_ url: String, _ output: String) -> String { url + "\n" + output }

    /// The file an earlier run saved for `url` into `output`, if it is still as it was verified.
    func finished(_ url: URL, output: URL) -> URL? {
        let candidates = state.withLock { $0.entries[Self.key(url.absoluteString, output.path)] ?? [] }
        for entry in candidates.reversed() {
            let saved = URL(fileURLWithPath: entry.saved)
            if let (size, modified) = Self.identity(of: saved), size == entry.size, modified == entry.modified { return saved }
        }
        return nil
    }

    /// Adds the verified file `saved`, downloaded from `url` for `output`; returns its size (`nil` when it is not a
    /// regular file, which is not recorded).
    /// - Throws: A message with the system's reason when the record cannot be written.
    @discardableResult
    func record(_ url: URL, output: URL, saved: URL) throws -> Int64? {
        guard let (size, modified) = Self.identity(of: saved) else { return nil }
        let entry = Entry(url: url.absoluteString, output: output.path, saved: saved.path, size: size, modified: modified)
        var line = try entry.modified.isFinite ? entry.jsonLine() : encoder.encode(entry)
        line.append(UInt8(ascii: "\n"))
        try state.withLock { state in
            // One write(2) of one line with O_APPEND: runs of two batches into one directory interleave whole lines.
            let fd = try state.descriptor ?? {
                let fd = open(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw Failure(message: "cannot write \(file.path): \(String(cString: strerror(errno)))") }
                return fd
            }()
            state.descriptor = fd
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count else { throw Failure(message: "cannot write \(file.path): \(String(cString: strerror(errno)))") }
            state.entries[Self.key(entry.url, entry.output), default: []].append(entry)
        }
        return size
    }

    /// A record that could not be written.
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// A regular file's size and modification time, or `nil` for anything else.
    private static func identity(of url: URL) -> (Int64, Double)? {
        guard let status = FileStatus(path: url.path), status.kind == .regular else { return nil }
        return (status.size, status.modified.timeIntervalSince1970)
    }
}
