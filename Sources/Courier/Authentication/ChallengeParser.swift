/// Parses `WWW-Authenticate` header values (RFC 9110 §11.6.1), including several challenges in
/// one field and quoted strings with commas and escapes.
enum ChallengeParser {
    /// The challenges in `headers`, in order.
    static func schemes(from headers: [String]) -> [AuthenticationScheme] {
        headers.flatMap(schemes(in:))
    }

    private static func schemes(in header: String) -> [AuthenticationScheme] {
        var result: [AuthenticationScheme] = []
        var scanner = Scanner(Array(header.unicodeScalars))
        while !scanner.isAtEnd {
            scanner.skip(while: { $0 == " " || $0 == "," || $0 == "\t" })
            let name = scanner.token()
            guard !name.isEmpty else {
                scanner.advance()
                continue
            }
            var parameters: [String: String] = [:]
            while true {
                let mark = scanner.position
                scanner.skip(while: { $0 == " " || $0 == "," || $0 == "\t" })
                let key = scanner.token()
                scanner.skip(while: { $0 == " " || $0 == "\t" })
                guard !key.isEmpty, scanner.consume("=") else {
                    scanner.position = mark
                    break
                }
                scanner.skip(while: { $0 == " " || $0 == "\t" })
                parameters[key.lowercased()] = scanner.peek == "\"" ? scanner.quotedString() : scanner.token()
            }
            result.append(AuthenticationScheme(name: name.lowercased(), parameters: parameters))
        }
        return result
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var isAtEnd: Bool { position >= scalars.count }
        var peek: Unicode.Scalar? { isAtEnd ? nil : scalars[position] }

        mutating func advance() { position += 1 }

        mutating func skip(while predicate: (Unicode.Scalar) -> Bool) {
            while let scalar = peek, predicate(scalar) { position += 1 }
        }

        mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
            guard peek == scalar else { return false }
            position += 1
            return true
        }

        /// An RFC 9110 token (also accepts token68 padding `=` at the end of a value).
        mutating func token() -> String {
            var text = String.UnicodeScalarView()
            while let scalar = peek, !" \t,=\"".unicodeScalars.contains(scalar) {
                text.append(scalar)
                position += 1
            }
            return String(text)
        }

        mutating func quotedString() -> String {
            var text = String.UnicodeScalarView()
            position += 1
            while let scalar = peek {
                position += 1
                if scalar == "\"" { break }
                if scalar == "\\", let escaped = peek {
                    text.append(escaped)
                    position += 1
                } else {
                    text.append(scalar)
                }
            }
            return String(text)
        }
    }
}
