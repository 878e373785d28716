/// Header fields with case-insensitive names, remembering the spelling last used for each.
struct HTTPHeaderFields: Equatable, Sendable {
    private var fields: [String: (name: String, value: String)] = [:]

    static func == (lhs: HTTPHeaderFields, rhs: HTTPHeaderFields) -> Bool {
        lhs.dictionary == rhs.dictionary
    }

    /// The value of `name`, matched case-insensitively.
    subscript(name: String) -> String? {
        get { fields[name.lowercased()]?.value }
        set {
            if let newValue { fields[name.lowercased()] = (name, newValue) } else { fields[name.lowercased()] = nil }
        }
    }

    /// All fields, keyed by their spelling.
    var dictionary: [String: String] {
        Dictionary(uniqueKeysWithValues: fields.values.map { ($0.name, $0.value) })
    }
}
