import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request body given whole rather than as fields: `--raw TEXT`, or what is piped on standard input (HTTPie's
/// behaviour), with its content type.
struct BodyInput {
    let data: Data
    let contentType: String

    /// The body from `--raw`, else from standard input when it is a pipe or a file (not a terminal, not
    /// `/dev/null`), not empty, and `--ignore-stdin` is not given; `nil` when there is none.
    /// - Throws: ``CLIFailure`` (usage) when standard input cannot be read.
    static func read(raw: String?, contentType: String?, ignoringStandardInput: Bool) throws -> BodyInput? {
        let data: Data
        if let raw {
            data = Data(raw.utf8)
        } else if !ignoringStandardInput, standardInputCarriesABody() {
            do {
                data = try FileHandle.standardInput.readToEnd() ?? Data()
            } catch {
                throw CLIFailure.usage("cannot read the body from standard input: \(error)")
            }
            // An empty pipe (`true | courier get …`, a script's `< /dev/null`-like input) is no body, as with HTTPie:
            // a GET must not gain `Content-Length: 0` and a Content-Type. `--raw ''` still sends an empty one.
            guard !data.isEmpty else { return nil }
        } else {
            return nil
        }
        return BodyInput(data: data, contentType: contentType ?? Self.contentType(of: data))
    }

    /// `application/json` for a body that parses as JSON, else `application/octet-stream`.
    static func contentType(of data: Data) -> String {
        (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil && !data.isEmpty
            ? "application/json" : "application/octet-stream"
    }

    /// Whether standard input is a pipe or a regular file: a terminal waits for typing, and a character device
    /// (`/dev/null`, what scripts and test runners often give) carries no body.
    private static func standardInputCarriesABody() -> Bool {
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFREG || kind == S_IFSOCK
    }
}
