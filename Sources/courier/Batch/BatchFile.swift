import Foundation

/// The list of downloads `courier batch` reads: one `URL` or `URL<TAB>output` per line; blank lines
/// and lines starting with `#` are ignored.
struct BatchFile: Equatable {
    /// One download.
    struct Entry: Equatable {
        /// The 1-based line it came from.
        let line: Int
        let url: URL
        /// Where the body goes: the line's output, or the URL's last path segment made safe (``SafeFileName``),
        /// relative to the output directory unless absolute.
        let output: URL
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
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count <= 2 else {
                throw Malformed(line: number, reason: "expected URL or URL<TAB>output, found \(fields.count) tab-separated fields")
            }
            guard let url = URL(string: fields[0]), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host != nil, !fields[0].contains(" ") else {
                throw Malformed(line: number, reason: "not an http or https URL: \(fields[0])")
            }
            var name = SafeFileName.forURL(url)
            if fields.count == 2 {
                guard !fields[1].isEmpty else { throw Malformed(line: number, reason: "empty output after the tab") }
                name = fields[1]
            }
            let output = (name.hasPrefix("/") ? URL(fileURLWithPath: name) : directory.appendingPathComponent(name)).standardizedFileURL
            if let earlier = claimed[output.path] {
                throw Malformed(line: number, reason: "\(output.path) is already the output of line \(earlier); name the output after a tab")
            }
            claimed[output.path] = number
            entries.append(Entry(line: number, url: url, output: output))
        }
        self.entries = entries
    }
}
