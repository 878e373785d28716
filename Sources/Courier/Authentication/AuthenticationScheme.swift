/// One scheme offered by a `WWW-Authenticate` header, with its parameters.
public struct AuthenticationScheme: Sendable, Equatable {
    /// The scheme name, lower-cased (`"basic"`, `"digest"`, …).
    public let name: String
    /// The parameters, keys lower-cased, values unquoted.
    public let parameters: [String: String]

    /// The `realm` parameter, if any.
    public var realm: String? { parameters["realm"] }
}
