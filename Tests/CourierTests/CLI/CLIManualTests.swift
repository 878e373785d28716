import Foundation
import Testing

/// `man/courier.1` is argument-parser's `generate-manual` plugin's output for the command as it is: every command and
/// every long option `courier --experimental-dump-help` describes (the same description the plugin reads) is in it.
/// A new option without a new page fails here; `swift package --allow-writing-to-directory man generate-manual
/// --output-directory man` writes it again.
struct CLIManualTests {
    static let manual = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("man/courier.1")

    /// A command of the dump: its name, long options and subcommands (hidden ones left out, as the page leaves them).
    struct Command {
        let name: String
        let options: [String]
        let subcommands: [Command]

        init?(_ object: [String: Any]) {
            guard let name = object["commandName"] as? String, object["shouldDisplay"] as? Bool != false else { return nil }
            self.name = name
            let arguments = object["arguments"] as? [[String: Any]] ?? []
            options = arguments.filter { $0["shouldDisplay"] as? Bool != false }.flatMap { argument in
                (argument["names"] as? [[String: String]] ?? []).filter { $0["kind"] == "long" }.compactMap { $0["name"] }
            }
            subcommands = (object["subcommands"] as? [[String: Any]] ?? []).compactMap(Command.init)
        }
    }

    @Test func theManualDescribesEveryCommandAndOption() async throws {
        let page = try String(contentsOf: Self.manual, encoding: .utf8)
        let dump = try await ChildProcess.run("courier", ["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        let command = try #require(object["command"] as? [String: Any])
        let root = try #require(Command(command))
        #expect(root.subcommands.count >= 10, "\(root.subcommands.map(\.name))")
        var missing: [String] = []
        for command in root.subcommands where command.name != "help" {
            // The page lists each command as `.It Em name`, its options beneath it up to the next command.
            guard let start = page.range(of: "\n.It Em \(command.name)\n") else {
                missing.append("the command \(command.name)")
                continue
            }
            let next = root.subcommands.compactMap { page.range(of: "\n.It Em \($0.name)\n", range: start.upperBound..<page.endIndex)?.lowerBound }.min()
            let section = page[start.upperBound..<(next ?? page.endIndex)]
            // `.It Fl -name` or, with a short name, `.It Fl n , -name Ar value`.
            for option in command.options where !section.contains(" -\(option) ") && !section.contains(" -\(option)\n") {
                missing.append("\(command.name) --\(option)")
            }
        }
        #expect(missing.isEmpty, "man/courier.1 is out of date: \(missing)")
    }
}
