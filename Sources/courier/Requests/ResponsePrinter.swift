import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Prints the final response on standard output the way HTTPie does: the status line, the header fields
/// with `--verbose`, then the body as it arrives.
///
/// The body is never held whole: text goes out chunk by chunk; a JSON body is held (up to
/// ``prettyPrintLimit``) only to be pretty-printed, and one that grows past that is printed as it
/// arrives instead; on a terminal a binary body is counted, not shown.
struct ResponsePrinter {
    /// The most bytes of a JSON body held to pretty-print it: 8 MiB.
    static let prettyPrintLimit = 8 << 20

    let verbose: Bool
    /// Whether standard output is a terminal (binary bodies are summarized there, as HTTPie does).
    var isTerminal = isatty(STDOUT_FILENO) == 1

    /// Prints the status line, and the header fields when verbose.
    func printHead(_ response: HTTPURLResponse, httpVersion: String?) {
        let head = VerboseTrace.responseHead(response, version: httpVersion)
        var text = head[0] + "\n"
        if verbose {
            for line in head.dropFirst() { text += line + "\n" }
        }
        write(Data(text.utf8))
    }

    /// Prints `body` after a blank line (none for an empty body) and returns its length.
    func printBody(_ body: ResponseBodyStream, contentType: String?) async throws -> Int64 {
        var chunks = body.makeAsyncIterator()
        guard let first = try await chunks.next() else { return 0 }
        write(Data("\n".utf8))
        var count = Int64(first.count)
        if contentType?.lowercased().contains("json") == true {
            var held = first
            while held.count <= Self.prettyPrintLimit, let chunk = try await chunks.next() {
                held.append(chunk)
                count += Int64(chunk.count)
            }
            if held.count <= Self.prettyPrintLimit, let pretty = Self.prettyJSON(held) {
                write(Data((pretty + "\n").utf8))
                return count
            }
            write(held)
        } else if isTerminal, first.contains(0) {
            while let chunk = try await chunks.next() { count += Int64(chunk.count) }
            write(Data("[binary body: \(count) bytes]\n".utf8))
            return count
        } else {
            write(first)
        }
        while let chunk = try await chunks.next() {
            write(chunk)
            count += Int64(chunk.count)
        }
        return count
    }

    /// `body` pretty-printed with sorted keys, or `nil` when it is not JSON.
    static func prettyJSON(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
              let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return nil }
        return String(data: pretty, encoding: .utf8)
    }

    private func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }
}
