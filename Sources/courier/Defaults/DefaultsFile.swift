import Courier
import Foundation

/// The options a user wants by default, kept in `$XDG_CONFIG_HOME/courier/config` (`~/.config/courier/config` when
/// `XDG_CONFIG_HOME` is not set; `COURIER_CONFIG` names another file, or none when empty), as curl keeps `.curlrc`
/// and HTTPie `config.json`'s `default_options`.
///
/// The file holds sections named after commands, each with options as they are typed on a command line (words split
/// as a POSIX shell splits them: quotes and backslashes, no expansion), `#` comments and blank lines:
///
/// ```
/// [requests]          # get, head, delete, post, put, patch and request
/// --timeout 10
/// -H "X-Team: core"
/// [download]
/// --split 4
/// ```
///
/// Precedence: options on the command line over the environment over the file. The file's options go in right after
/// the command's name, so the command line's own come later and win (a repeated `-H` of the same name replaces the
/// file's); and a file option that an environment variable also sets (`--proxy`: `https_proxy`, `http_proxy`,
/// `all_proxy`, either case) is left out while that variable is set.
struct DefaultsFile: Equatable {
    /// The commands a section may name; `requests` stands for the seven request commands.
    static let requestCommands: Set<String> = ["get", "head", "delete", "post", "put", "patch", "request"]
    static let sectionNames: Set<String> = requestCommands.union(["requests", "download", "batch"])

    /// Options an environment variable sets too, with those variables (either case).
    static let environmentSet: [String: [String]] = [
        "--proxy": ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"],
    ]

    /// The words of each section, in file order.
    let sections: [String: [String]]

    /// A line the file format does not allow.
    struct Malformed: Error, Equatable {
        let line: Int
        let reason: String
    }

    /// Parses `text`.
    /// - Throws: ``Malformed`` for an option outside a section, an unknown section, or an unclosed quote.
    init(parsing text: String) throws(Malformed) {
        var sections: [String: [String]] = [:]
        var current: String?
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                guard let close = trimmed.firstIndex(of: "]") else { throw Malformed(line: index + 1, reason: "a section is written [name]") }
                let name = trimmed[trimmed.index(after: trimmed.startIndex)..<close].trimmingCharacters(in: .whitespaces).lowercased()
                let rest = trimmed[trimmed.index(after: close)...].trimmingCharacters(in: .whitespaces)
                guard Self.sectionNames.contains(name), rest.isEmpty || rest.hasPrefix("#") else {
                    throw Malformed(line: index + 1, reason: "unknown section [\(name)] (one of: \(Self.sectionNames.sorted().joined(separator: ", ")))")
                }
                current = name
                continue
            }
            guard let current else { throw Malformed(line: index + 1, reason: "options go under a [command] section, e.g. [requests] or [download]") }
            guard let words = Self.words(of: trimmed) else { throw Malformed(line: index + 1, reason: "a quote is not closed") }
            sections[current, default: []] += words
        }
        self.sections = sections
    }

    /// The file `environment` points to: `COURIER_CONFIG` (none when empty), else `$XDG_CONFIG_HOME/courier/config`,
    /// else `$HOME/.config/courier/config`; `nil` when none applies.
    static func location(environment: [String: String]) -> URL? {
        if let given = environment["COURIER_CONFIG"] { return given.isEmpty ? nil : URL(fileURLWithPath: given) }
        if let base = environment["XDG_CONFIG_HOME"], !base.isEmpty {
            return URL(fileURLWithPath: base).appendingPathComponent("courier/config")
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".config/courier/config")
    }

    /// `arguments` (without the program's name) with the file's options for their command inserted after the command's
    /// name, less those an environment variable sets.
    func applied(to arguments: [String], environment: [String: String]) -> [String] {
        guard let command = arguments.first?.lowercased(), Self.sectionNames.contains(command), command != "requests" else { return arguments }
        var words = Self.requestCommands.contains(command) ? sections["requests"] ?? [] : []
        words += sections[command] ?? []
        let setByEnvironment = Set(Self.environmentSet.compactMap { option, variables in
            variables.contains { environment[$0].map { !$0.isEmpty } == true || environment[$0.lowercased()].map { !$0.isEmpty } == true } ? option : nil
        })
        var kept: [String] = []
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            if setByEnvironment.contains(name) {
                // The option and, unless written --option=value, its value.
                index += word.contains("=") ? 1 : 2
                continue
            }
            kept.append(word)
            index += 1
        }
        return [arguments[0]] + kept + arguments.dropFirst()
    }

    /// The file `environment` names, read and applied to `arguments`: `arguments` as they are when there is none.
    /// - Returns: The arguments, and the words the file added (for an error's hint).
    /// - Throws: ``CLIFailure`` (usage) when `COURIER_CONFIG` names a file that cannot be read, or the file is malformed.
    static func arguments(_ arguments: [String], environment: [String: String]) throws(CLIFailure) -> (arguments: [String], added: [String], file: URL?) {
        guard let location = location(environment: environment) else { return (arguments, [], nil) }
        // Only a file named by COURIER_CONFIG must exist; the default one is optional.
        guard environment["COURIER_CONFIG"] != nil || FileManager.default.fileExists(atPath: location.path) else { return (arguments, [], nil) }
        guard let data = PrivateFile.contents(of: location, atMost: 1 << 20), let text = String(data: data, encoding: .utf8) else {
            throw CLIFailure.usage("cannot read the defaults file \(location.path) (missing, unreadable, not UTF-8 or over 1 MiB)")
        }
        let file: DefaultsFile
        do {
            file = try DefaultsFile(parsing: text)
        } catch {
            throw CLIFailure.usage("\(location.path): line \(error.line): \(error.reason)")
        }
        let applied = file.applied(to: arguments, environment: environment)
        let added = applied.count > arguments.count ? Array(applied[1...(applied.count - arguments.count)]) : []
        return (applied, added, location)
    }

    /// The words of `line` as a POSIX shell splits them (without expansions): white space separates, `'…'` keeps
    /// everything, `"…"` keeps all but `\"` and `\\`, a backslash outside quotes escapes the next character, and `#`
    /// at the start of a word begins a comment. `nil` when a quote is not closed.
    static func words(of line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = line.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t":
                if inWord { words.append(word); word = ""; inWord = false }
            case "#" where !inWord:
                return words
            case "'":
                inWord = true
                var closed = false
                while let next = characters.next() {
                    if next == "'" { closed = true; break }
                    word.append(next)
                }
                guard closed else { return nil }
            case "\"":
                inWord = true
                var closed = false
                while let next = characters.next() {
                    if next == "\"" { closed = true; break }
                    if next == "\\", let escaped = characters.next() {
                        if escaped != "\"" && escaped != "\\" { word.append("\\") }
                        word.append(escaped)
                        continue
                    }
                    word.append(next)
                }
                guard closed else { return nil }
            case "\\":
                inWord = true
                if let escaped = characters.next() { word.append(escaped) }
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
