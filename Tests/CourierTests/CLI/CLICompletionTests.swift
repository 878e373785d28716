import Foundation
import Testing

/// `courier --generate-completion-script`: the bash script loads in bash, registers `_courier` and offers the
/// subcommands; the zsh and fish scripts are generated (their shells are not on this machine: checked when present).
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

    @Test(arguments: ["zsh", "fish"])
    func theOtherScriptsAreGeneratedAndParse(shell: String) async throws {
        let courier = try ChildProcess.executable("courier").path
        let script = try await ChildProcess.run("courier", ["--generate-completion-script", shell])
        #expect(script.status == 0)
        #expect(script.standardOutput.contains("courier"))
        let available = await ShellCommand.status(of: "command -v \(shell)") == 0
        guard available else { return }
        let check = shell == "zsh" ? "zsh -n <('\(courier)' --generate-completion-script zsh)" : "'\(courier)' --generate-completion-script fish | fish --no-execute"
        #expect(await ShellCommand.status(of: check) == 0)
    }
}
