/// Header fields with case-insensitive names, remembering the spelling last used for each.
struct HTTPHeaderFields: Equatable, Sendable {
    /// A field as it was set, with the name as Foundation stores it on a request.
    struct Field: Sendable {
        var name: String
        var value: String
        /// `name.capitalized`: what `URLRequest.setValue(_:forHTTPHeaderField:)` would store. Worked out when the field
        /// is set, not for every request (`capitalized` is one of the costlier calls on the request path).
        var storedName: String
        /// Whether Foundation takes the value as it is: no CR, LF or NUL (Foundation's own check, which also allows a
        /// folded line, decides the rare others).
        var isPlain: Bool
    }

    /// Keyed by the lowercased name.
    private(set) var fields: [String: Field] = [:] {
        didSet { refusal = Self.refusal(of: fields) }
    }
    /// Why these fields cannot be sent (`RequestHeaderCheck`), or `nil`: worked out when a field is set, not for every
    /// request.
    private(set) var refusal: RequestHeaderError?

    private static func refusal(of fields: [String: Field]) -> RequestHeaderError? {
        do {
            try RequestHeaderCheck.check(fields.values.map { (name: $0.name, value: $0.value) })
            return nil
        } catch {
            return error
        }
    }

    static func == (lhs: HTTPHeaderFields, rhs: HTTPHeaderFields) -> Bool {
        lhs.dictionary == rhs.dictionary
    }

    /// The value of `name`, matched case-insensitively.
    subscript(name: String) -> String? {
        get { fields[name.lowercased()]?.value }
        set {
            guard let newValue else {
                fields[name.lowercased()] = nil
                return
            }
            let isPlain = !newValue.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
            fields[name.lowercased()] = Field(name: name, value: newValue, storedName: name.capitalized, isPlain: isPlain)
        }
    }

    /// All fields, keyed by their spelling.
    var dictionary: [String: String] {
        Dictionary(uniqueKeysWithValues: fields.values.map { ($0.name, $0.value) })
    }
}
