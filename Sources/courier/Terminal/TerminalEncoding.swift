import Courier
import Foundation

/// The character encoding a terminal shows text in, from the locale's variables as the C library reads them
/// (`LC_ALL`, then `LC_CTYPE`, then `LANG`; the part after `.`, as in `ru_RU.KOI8-R`).
///
/// Read from the variables rather than with `setlocale` and `nl_langinfo`, which would change the process's locale for
/// everything else it formats. The C and POSIX locales (no variable, or one without a codeset) are taken as UTF-8:
/// they usually mean "not set", on terminals that show UTF-8, and their ASCII would turn every other character into
/// `?` (HTTPie shows UTF-8 always).
enum TerminalEncoding {
    /// The encoding `environment`'s locale names; UTF-8 when it names none, or one this platform cannot write.
    static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> String.Encoding {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, let dot = locale.firstIndex(of: ".") else { return .utf8 }
        let codeset = locale[locale.index(after: dot)...].prefix { $0 != "@" }
        guard let encoding = CharsetDecoding.encoding(forCharset: String(codeset)), encoding != .ascii else { return .utf8 }
        return encoding
    }

    /// Whether text in `encoding` reaches a terminal showing `display` unchanged: the same encoding, or US-ASCII
    /// (a subset of every encoding a terminal uses).
    static func showsAsIs(_ encoding: String.Encoding, on display: String.Encoding) -> Bool {
        encoding == display || encoding == .ascii
    }
}
