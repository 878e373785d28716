import Foundation

/// The list of downloads `courier batch` reads: one `URL` or `URL<TAB>output` per line, or a JSON Lines manifest
/// (a line starting with `{`: see ``ManifestLine``), the two mixed if need be; blank lines and lines starting with `#`
/// are ignored.
struct BatchFile: Equatable {
    /// One download.
    struct Entry: Equatable {
        /// The 1-based line it came from.
        let line: Int
        /// The URL fetched: the listed one, or a mirror tried after it failed.
        let url: URL
        /// Where the body goes: the line's output, or the URL's last path segment made safe (``SafeFileName``),
        /// relative to the output directory unless absolute.
        let output: URL
        /// Other URLs of the same file, tried in turn when a download fails (a manifest's `mirrors`). Default none.
        var mirrors: [URL] = []
        /// The size the file must have (a manifest's `size`). Default `nil`: the server's word only.
        var size: Int64?
        /// The digest the file must have (a manifest's `sha256` or `sha512`, or a line of `--checksums`). Default `nil`.
        var checksum: ExpectedChecksum?
        /// Header fields of this file's requests, over the command's (a manifest's `headers`). Default none.
        var headers: [String: String] = [:]
        /// The URL the line lists, when ``url`` is a mirror of it; `nil` otherwise. A finished file is recorded under
        /// it, so the next run skips the file whichever mirror served it.
        var listedURL: URL?

        /// This download from the next mirror, or `nil` when none is left.
        func nextMirror() -> Entry? {
            guard let mirror = mirrors.first else { return nil }
            var next = Entry(line: line, url: mirror, output: output, mirrors: Array(mirrors.dropFirst()), size: size,
                             checksum: checksum, headers: headers)
            next.listedURL = listedURL ?? url
            return next
        }
    }

    /// The downloads in file order.
    let entries: [Entry]

    /// A line that is not a download, named by its number.
    struct Malformed: Error, Equatable {
        let line: Int
        let reason: String
        var message: String { "line \(line): \(reason)" }
    }

    /// Parses `text`; relative outputs are placed in `directory`.
    /// - Throws: ``Malformed`` for the first bad line: not an http(s) URL, more than one tab, an
    ///   empty output, or an output another line already writes.
    init(parsing text: String, directory: URL) throws {
        var entries: [Entry] = []
        var claimed: [String: Int] = [:]
        // "\r\n" is a single Character, so CRLF files split here too.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let trimmed = String(line.trimmingBlanks)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("{") {
                let entry = try ManifestLine.entry(parsing: trimmed, line: number, directory: directory)
                if let earlier = claimed[entry.output.path] {
                    throw Malformed(line: number, reason: "\(entry.output.path) is already the output of line \(earlier); give another \"output\"")
                }
                claimed[entry.output.path] = number
                entries.append(entry)
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { String($0.trimmingBlanks) }
            guard fields.count <= 2 else {
                throw Malformed(line: number, reason: "expected URL or URL<TAB>output, found \(fields.count) tab-separated fields")
            }
            let url = try Self.httpURL(fields[0], line: number)
            if fields.count == 2, fields[1].isEmpty { throw Malformed(line: number, reason: "empty output after the tab") }
            let output = Self.output(fields.count == 2 ? fields[1] : SafeFileName.forURL(url), in: directory)
            let path = output.path
            if let earlier = claimed[path] {
                throw Malformed(line: number, reason: "\(path) is already the output of line \(earlier); name the output after a tab")
            }
            claimed[path] = number
            entries.append(Entry(line: number, url: url, output: output))
        }
        self.entries = entries
    }

    /// `text` as an absolute http(s) URL.
    /// - Throws: ``Malformed`` otherwise.
    static func httpURL(_ text: String, line: Int) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil, !text.utf8.contains(UInt8(ascii: " ")) else {
            throw Malformed(line: line, reason: "not an http or https URL: \(text)")
        }
        return url
    }

    /// Where an output `name` goes: itself when absolute, else inside `directory`. A directory only when the name
    /// ends with "/": `URL(fileURLWithPath:)` and `appendingPathComponent` would each ask the file system, one
    /// `stat(2)` per line of a list of thousands.
    /// `directory` is standardized already; the result is standardized again only when `name` has a segment that
    /// standardizing changes (".", "..", an empty one), which costs more than the rest of a line's parsing.
    static func output(_ name: String, in directory: URL) -> URL {
        let joined = name.hasPrefix("/") ? URL(filePath: name, directoryHint: .inferFromPath)
            : directory.appending(path: name, directoryHint: .inferFromPath)
        let plain = name.split(separator: "/", omittingEmptySubsequences: false).dropFirst(name.hasPrefix("/") ? 1 : 0)
            .allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
        return plain ? joined : joined.standardizedFileURL
    }

    /// The entries with the digests of a `SHA256SUMS`-style file (``ChecksumsFile``) given to those that have none
    /// of their own: matched by the output's path relative to `directory`, else by its file name.
    func verified(by checksums: ChecksumsFile, directory: URL) -> BatchFile {
        let prefix = directory.standardizedFileURL.path + "/"
        let entries = self.entries.map { entry in
            guard entry.checksum == nil else { return entry }
            var entry = entry
            let path = entry.output.path
            let relative = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
            entry.checksum = checksums.digests[relative] ?? checksums.digests[entry.output.lastPathComponent]
            return entry
        }
        return BatchFile(entries: entries)
    }

    private init(entries: [Entry]) {
        self.entries = entries
    }
}
