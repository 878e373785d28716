/// libFuzzer entry point: `WWW-Authenticate` field values as a server may send them, one per line, through
/// `ChallengeParser`. Checks that every scheme has a name that is a lower-cased token, that parameter names are
/// lower-cased tokens too, and that each field parses alone to the schemes it contributes to the whole list.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let fields = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let schemes = ChallengeParser.schemes(from: fields)
    for scheme in schemes {
        precondition(isLowerCasedToken(scheme.name), "a scheme name that is not a lower-cased token: \(scheme.name)")
        for name in scheme.parameters.keys {
            precondition(isLowerCasedToken(name), "a parameter name that is not a lower-cased token: \(name)")
        }
        _ = scheme.realm
    }
    let oneByOne = fields.flatMap { ChallengeParser.schemes(from: [$0]) }
    precondition(oneByOne == schemes, "fields parsed together differ from fields parsed alone")
    return 0
}

/// Not empty, and free of the separators the parser splits on and of upper-case letters.
private func isLowerCasedToken(_ text: String) -> Bool {
    !text.isEmpty && !text.unicodeScalars.contains { " \t,=\"".unicodeScalars.contains($0) } && text == text.lowercased()
}
