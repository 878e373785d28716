import Foundation

/// One `-H 'Name: value'` option: a header field to set, or to remove when the value is empty.
struct HeaderOption: Equatable {
    let name: String
    let value: String

    /// Characters of an HTTP field name (RFC 9110 token).
    private static let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)

    /// A field already split into its name and value (a `Name:value` request item).
    init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `Name: value`; the value's surrounding white space is dropped.
    /// - Throws: ``CLIFailure`` (usage) when there is no colon, the name is not a token, or the value holds a line break.
    init(parsing text: String) throws {
        guard let colon = text.firstIndex(of: ":") else {
            throw CLIFailure.usage("bad header \"\(text)\": write it as 'Name: value'")
        }
        let name = String(text[..<colon])
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard Self.isFieldName(name) else {
            throw CLIFailure.usage("bad header \"\(text)\": \"\(name)\" is not a header name")
        }
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw CLIFailure.usage("bad header \"\(name)\": the value holds a line break")
        }
        self.name = name
        self.value = value
    }

    /// Whether `name` is a valid header field name.
    static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy(tokenCharacters.contains)
    }
}
