/// HTTPie's URL shorthand, for the URL argument of the request commands and `download`: `:3000/path` is
/// `http://localhost:3000/path` (and `:/path` is `http://localhost/path`), and a URL without a scheme
/// (`example.org/path`, `localhost:8080`) is `http://` followed by it. Anything with `://` is left as it is.
enum URLShorthand {
    /// `text` with the shorthand written out.
    static func expanded(_ text: String) -> String {
        guard !text.contains("://") else { return text }
        if text.hasPrefix(":") {
            let rest = text.dropFirst()
            // ":" alone, ":/path" (no port) or ":3000/path".
            return "http://localhost" + (rest.first == "/" || rest.isEmpty ? rest : ":" + rest)
        }
        return "http://" + text
    }
}
