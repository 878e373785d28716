// Standard library only: the parsers that throw these are also compiled alone into fuzz targets (Fuzz/).

/// Courier's exit codes.
enum ExitStatus: Int32 {
    case success = 0
    case usage = 2
    case httpError = 3
    case network = 4
    /// A downloaded file does not match the size or digest the server announced.
    case verification = 5
    /// At least one download of a batch failed.
    case batchFailed = 6
    /// Stopped by SIGINT (Ctrl-C): 128 + 2.
    case interrupted = 130
    /// Stopped by SIGTERM: 128 + 15.
    case terminated = 143
}

/// A failure that ends the command with a one-line message and an exit code.
struct CLIFailure: Error {
    let status: ExitStatus
    let message: String

    static func usage(_ message: String) -> CLIFailure { CLIFailure(status: .usage, message: message) }
}
