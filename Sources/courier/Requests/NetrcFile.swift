import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `.netrc` file (curl's `--netrc`, ftp(1)'s format): logins and passwords by host, read when the user asks for
/// them.
///
/// Hand-written: no maintained Swift package reads the format, and Foundation has no reader on Linux. Read as curl
/// reads it: tokens separated by white space, `"quoted"` tokens with backslash escapes, `#` comments to the line's
/// end, `machine NAME` and `default` entries with `login`, `password` and `account` (ignored), and `macdef` bodies
/// (ignored up to the next empty line). Anything else is an error naming its line, not a guess.
struct NetrcFile: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        /// The host, lowercased; `nil` for the `default` entry.
        var machine: String?
        var login: String?
        var password: String?
    }

    /// What cannot be read, with the line (from 1) it is on.
    struct SyntaxError: Error, Equatable, CustomStringConvertible {
        let line: Int
        let problem: String
        var description: String { "line \(line): \(problem)" }
    }

    /// The largest file read (a credential file of a megabyte is something else).
    static let maximumSize = 1 << 20

    private(set) var entries: [Entry] = []

    /// The entries of `text`.
    /// - Throws: ``SyntaxError`` for a keyword without its value, a field outside an entry, an unknown keyword or an
    ///   unterminated quote.
    init(parsing text: String) throws(SyntaxError) {
        var tokens = Tokenizer(text)
        while let (keyword, line) = try tokens.next() {
            switch keyword {
            case "machine":
                guard let (name, _) = try tokens.next() else { throw SyntaxError(line: line, problem: "machine without a host name") }
                entries.append(Entry(machine: name.lowercased()))
            case "default":
                entries.append(Entry(machine: nil))
            case "login", "password", "account":
                guard !entries.isEmpty else { throw SyntaxError(line: line, problem: "\(keyword) before any machine or default") }
                guard let (value, _) = try tokens.next() else { throw SyntaxError(line: line, problem: "\(keyword) without a value") }
                if keyword == "login" { entries[entries.count - 1].login = value }
                if keyword == "password" { entries[entries.count - 1].password = value }
            case "macdef":
                guard try tokens.next() != nil else { throw SyntaxError(line: line, problem: "macdef without a name") }
                tokens.skipMacroBody()
            default:
                throw SyntaxError(line: line, problem: "unknown keyword \"\(keyword)\" (expected machine, default, login, password, account or macdef)")
            }
        }
    }

    /// The file at `path`.
    /// - Throws: ``CLIFailure`` (usage) when it cannot be read, is too large or not UTF-8, or has a syntax error.
    init(contentsOf path: String) throws(CLIFailure) {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: Self.maximumSize + 1) ?? Data()
        } catch {
            throw CLIFailure.usage("cannot read the netrc file \(path): \((error as NSError).localizedDescription)")
        }
        guard data.count <= Self.maximumSize else {
            throw CLIFailure.usage("the netrc file \(path) is larger than \(Self.maximumSize / 1024) KiB")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIFailure.usage("the netrc file \(path) is not UTF-8 text")
        }
        do throws(SyntaxError) {
            try self.init(parsing: text)
        } catch {
            throw CLIFailure.usage("the netrc file \(path), \(error)")
        }
    }

    /// The credential for `host`: the first `machine` entry naming it (case-insensitively), else the `default`
    /// entry; `nil` when neither has a login. An entry without a password gives an empty one, as curl sends it.
    func credential(forHost host: String) -> URLCredential? {
        let host = host.lowercased()
        let entry = entries.first { $0.machine == host } ?? entries.first { $0.machine == nil }
        guard let entry, let login = entry.login else { return nil }
        return URLCredential(user: login, password: entry.password ?? "", persistence: .forSession)
    }
}

/// The tokens of a netrc file, each with its line.
private struct Tokenizer {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// The next token and the line it starts on; `nil` at the end.
    mutating func next() throws(NetrcFile.SyntaxError) -> (String, Int)? {
        skipSpaceAndComments()
        guard index < scalars.count else { return nil }
        let start = line
        var token = String.UnicodeScalarView()
        if scalars[index] == "\"" {
            index += 1
            while true {
                guard index < scalars.count else { throw NetrcFile.SyntaxError(line: start, problem: "a quoted value without its closing quote") }
                let scalar = scalars[index]
                index += 1
                if scalar == "\"" { break }
                if scalar == "\n" { line += 1 }
                if scalar == "\\", index < scalars.count {
                    let escaped = scalars[index]
                    index += 1
                    switch escaped {
                    case "n": token.append("\n")
                    case "r": token.append("\r")
                    case "t": token.append("\t")
                    default: token.append(escaped)
                    }
                } else {
                    token.append(scalar)
                }
            }
        } else {
            while index < scalars.count, !scalars[index].properties.isWhitespace {
                token.append(scalars[index])
                index += 1
            }
        }
        return (String(token), start)
    }

    /// Skips a `macdef` body: the rest of its line, then lines up to and including the next empty one.
    mutating func skipMacroBody() {
        var previousWasNewline = false
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard scalar == "\n" else { previousWasNewline = false; continue }
            line += 1
            if previousWasNewline { return }
            previousWasNewline = true
        }
    }

    private mutating func skipSpaceAndComments() {
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "#" {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            } else if scalar.properties.isWhitespace {
                if scalar == "\n" { line += 1 }
                index += 1
            } else {
                return
            }
        }
    }
}
