import Foundation

/// The curl `-F` / `--form-string` arguments that send the same fields and files as a multipart form.
///
/// curl writes its own boundary, so the bytes differ while the fields, file names, types and contents are the
/// same. A form field becomes `--form-string name=value` (taken literally); a file part becomes
/// `-F name=@path;filename=…;type=…`. A file part whose content came from memory or an `InputStream` has no
/// path curl could read: it is written as `@` followed by its file name, a file the reader must supply.
enum CURLFormArguments {
    /// The arguments for `parts`, in order.
    static func arguments(for parts: [MultipartPart]) -> [String] {
        parts.flatMap(arguments(for:))
    }

    private static func arguments(for part: MultipartPart) -> [String] {
        let disposition = header("Content-Disposition", of: part) ?? ""
        let name = parameter("name", in: disposition) ?? ""
        guard let fileName = parameter("filename", in: disposition) else {
            let value: String
            if case .data(let data) = part.source, let text = String(data: data, encoding: .utf8) {
                value = text
            } else {
                value = ""
            }
            return ["--form-string", ShellQuoting.quote("\(name)=\(value)")]
        }
        let path: String
        if case .file(let url) = part.source {
            path = url.path
        } else {
            path = fileName
        }
        var value = "\(name)=@\(formWord(path));filename=\(formWord(fileName))"
        if let type = header("Content-Type", of: part) {
            value += ";type=\(type)"
        }
        return ["-F", ShellQuoting.quote(value)]
    }

    private static func header(_ name: String, of part: MultipartPart) -> String? {
        part.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The value of `name="…"` in a `Content-Disposition`, with the `%22`, `%0D`, `%0A` escapes undone. Quoted values
    /// never hold a `"` (the form escapes it), so a value ends at the next one, whatever `;` it holds.
    private static func parameter(_ name: String, in disposition: String) -> String? {
        var rest = Substring(disposition)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " }
            let prefix = "\(name)=\""
            guard rest.hasPrefix(prefix) else {
                // Skip this parameter, quoted value included.
                if let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"",
                   let close = rest[rest.index(equals, offsetBy: 2)...].firstIndex(of: "\"") {
                    rest = rest[rest.index(after: close)...]
                }
                continue
            }
            let value = rest.dropFirst(prefix.count)
            guard let close = value.firstIndex(of: "\"") else { return nil }
            return String(value[..<close])
                .replacingOccurrences(of: "%22", with: "\"")
                .replacingOccurrences(of: "%0D", with: "\r")
                .replacingOccurrences(of: "%0A", with: "\n")
        }
        return nil
    }

    /// A path or file name inside a `-F` value: double-quoted (with `\` escapes) when it holds a character
    /// curl's form syntax would read as a separator.
    private static func formWord(_ text: String) -> String {
        guard text.contains(where: { ";,\"\\".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
