import Foundation
import Testing

/// `courier --generate-completion-script`: each script loads in its shell; bash and fish offer the subcommands, zsh
/// registers `_courier` for `courier` (zsh and fish are skipped where they are not installed; CI installs them).
@Suite("courier shell completion")
struct CLICompletionTests {
    @Test func theBashScriptLoadsAndOffersTheSubcommands() async throws {
        let courier = try ChildProcess.executable("courier").path
        let outcome = try await ShellCommand.run("""
        source <('\(courier)' --generate-completion-script bash) || exit 9
        complete -p courier || exit 8
        COMP_WORDS=(courier ""); COMP_CWORD=1; COMP_LINE="courier "; COMP_POINT=${#COMP_LINE}
        _courier
        printf '%s\\n' "${COMPREPLY[@]}"
        """)
        let lines = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(lines.first == "complete -o filenames -F _courier courier")
        for subcommand in ["get", "post", "request", "download", "batch"] {
            #expect(lines.contains(subcommand), "\(subcommand) not offered: \(lines)")
        }
    }

    /// Whether `shell` is on the PATH (`.ci/run` installs zsh and fish).
    static func installed(_ shell: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(shell)") }
    }

    @Test(.enabled(if: installed("zsh"), "zsh is not installed"))
    func theZshScriptLoadsAndRegistersTheFunction() async throws {
        let courier = try ChildProcess.executable("courier").path
        let outcome = try await ShellCommand.run("""
        zsh -f -c "autoload -U compinit && compinit -u -D && source <('\(courier)' --generate-completion-script zsh) && print -r -- \\$_comps[courier]"
        """)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(String(decoding: outcome.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "_courier")
    }

    @Test(.enabled(if: installed("fish"), "fish is not installed"))
    func theFishScriptLoadsAndOffersTheSubcommands() async throws {
        let courier = try ChildProcess.executable("courier").path
        let outcome = try await ShellCommand.run("""
        fish --no-config -c "source ('\(courier)' --generate-completion-script fish | psub); and complete -C 'courier '"
        """)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let offered = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
        for subcommand in ["get", "post", "request", "download", "batch"] {
            #expect(offered.contains(subcommand), "\(subcommand) not offered: \(offered)")
        }
    }
}
