import Foundation

/// ANSI colours for a terminal: the status line by class, header names, and JSON's keys, strings and literals.
///
/// Used only on a terminal, when bodies are formatted and `NO_COLOR` is not set (no-color.org).
struct TerminalColors {
    private static let reset = "\u{1B}[0m"
    private static let bold = "\u{1B}[1m"
    private static let red = "\u{1B}[31m"
    private static let green = "\u{1B}[32m"
    private static let yellow = "\u{1B}[33m"
    private static let blue = "\u{1B}[34m"
    private static let magenta = "\u{1B}[35m"
    private static let cyan = "\u{1B}[36m"

    /// Whether colours are on for this process: a terminal, formatted bodies, and no `NO_COLOR` (any value).
    static func enabled(isTerminal: Bool, formatsBodies: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        isTerminal && formatsBodies && environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// The status line, bold, green for 2xx, yellow for 1xx and 3xx, red for 4xx and 5xx.
    static func statusLine(_ line: String, statusCode: Int) -> String {
        let colour = switch statusCode {
        case 200..<300: green
        case 400...: red
        default: yellow
        }
        return bold + colour + line + reset
    }

    /// A `Name: value` line with its name in cyan.
    static func headerLine(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return line }
        return cyan + line[..<colon] + reset + line[colon...]
    }

    /// Pretty-printed JSON with keys in blue, string values in green, numbers in yellow and `true`, `false` and
    /// `null` in magenta.
    static func json(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + text.utf8.count / 4)
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" {
                let end = Self.endOfString(in: text, from: index)
                let literal = text[index..<end]
                let isKey = text[end...].first { $0 != " " && $0 != "\n" } == ":"
                result += (isKey ? blue : green) + literal + reset
                index = end
            } else if character == "-" || character.isNumber {
                let end = text[index...].firstIndex { !($0.isNumber || "+-.eE".contains($0)) } ?? text.endIndex
                result += yellow + text[index..<end] + reset
                index = end
            } else if let word = ["true", "false", "null"].first(where: { text[index...].hasPrefix($0) }) {
                let end = text.index(index, offsetBy: word.count)
                result += magenta + text[index..<end] + reset
                index = end
            } else {
                result.append(character)
                index = text.index(after: index)
            }
        }
        return result
    }

    /// The index after the closing quote of the string starting at `start` (escapes skipped).
    private static func endOfString(in text: String, from start: String.Index) -> String.Index {
        var index = text.index(after: start)
        while index < text.endIndex {
            switch text[index] {
            case "\\":
                index = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            case "\"":
                return text.index(after: index)
            default:
                index = text.index(after: index)
            }
        }
        return text.endIndex
    }
}
