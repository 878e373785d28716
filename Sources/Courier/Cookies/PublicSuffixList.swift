import Foundation

/// The Public Suffix List (publicsuffix.org): the domains under which anyone may register a name (`com`, `co.uk`,
/// `github.io`). A cookie's `Domain` must not be one of them, or a server could set cookies for every site beneath it
/// (RFC 6265 §5.3 step 5).
///
/// Read from the copy the system ships, as libpsl and curl read it: Debian's and Ubuntu's `publicsuffix` package
/// (``systemPath``). Without that file only the list's default rule applies: a single label (a top-level domain such
/// as `com`) is a public suffix, which stops `Domain=com` but not `Domain=co.uk`. Rules are compared with the host as
/// the URL gives it: internationalised rules, written in Unicode in the list, do not match punycode (`xn--`) hosts.
///
/// Hand-written: no maintained Swift package reads the list, and its matching rules (RFC-less, publicsuffix.org's
/// "algorithm") are a few lines.
struct PublicSuffixList: Sendable {
    /// Where Debian's `publicsuffix` package puts the list.
    static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The system's list, read once; the default rule alone when the file is missing or unreadable.
    static let system = PublicSuffixList(contentsOfFile: systemPath) ?? PublicSuffixList(parsing: "")

    /// Plain rules (`co.uk`).
    private let rules: Set<String>
    /// The parts after `*.` of wildcard rules (`*.ck` is stored as `ck`).
    private let wildcards: Set<String>
    /// Exception rules without their `!` (`www.ck`): registrable although a wildcard covers them.
    private let exceptions: Set<String>

    /// Whether the list had any rule (false for the default rule alone).
    var isEmpty: Bool { rules.isEmpty && wildcards.isEmpty }

    /// The list in the file at `path`, or `nil` when it cannot be read.
    init?(contentsOfFile path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        self.init(parsing: text)
    }

    /// The list in `text`: one rule per line, the first word of it; `//` starts a comment line.
    init(parsing text: String) {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            guard let word = line.split(whereSeparator: \.isWhitespace).first, !word.hasPrefix("//") else { continue }
            let rule = word.lowercased()
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// Whether `domain` (lower-case, without a leading or trailing dot) is a public suffix: a rule names it, or a
    /// wildcard rule covers it and no exception rule names it, or it is a single label.
    func isPublicSuffix(_ domain: String) -> Bool {
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        guard let dot = domain.firstIndex(of: ".") else { return true }   // the default rule, `*`
        return wildcards.contains(String(domain[domain.index(after: dot)...]))
    }
}
