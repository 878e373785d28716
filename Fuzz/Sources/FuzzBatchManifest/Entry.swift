import Foundation

/// Where relative outputs go (nothing is written: the parser only names files).
private let directory = URL(fileURLWithPath: "/fuzz/out", isDirectory: true)

/// libFuzzer entry point: the input as the list `courier batch` reads (plain `URL<TAB>output` lines and JSON Lines
/// manifest objects, mixed) through `BatchFile`, and as a `--checksums` file through `ChecksumsFile`.
///
/// Checks that a refused list names a line it has, and only with `BatchFile.Malformed`; that an accepted one has its
/// entries in line order, one output each, http(s) URLs and mirrors with a host, sizes from 0, digests of their
/// algorithm's length and header fields that are tokens with values free of line breaks; and that every manifest entry
/// written back as a manifest line parses to the same download. A checksums file is refused with a usage error or
/// gives names with digests of their algorithm's length.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let lineCount = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count

    do {
        let batch = try BatchFile(parsing: text, directory: directory)
        check(batch, lineCount: lineCount, text: text)
    } catch let malformed as BatchFile.Malformed {
        precondition((1...lineCount).contains(malformed.line), "line \(malformed.line) of \(lineCount) named")
        precondition(!malformed.reason.isEmpty)
    } catch {
        preconditionFailure("not a Malformed: \(error)")
    }

    do {
        let checksums = try ChecksumsFile(parsing: text, named: "SUMS")
        for (name, checksum) in checksums.digests {
            precondition(!name.isEmpty)
            checkLength(checksum)
        }
    } catch let failure as CLIFailure {
        precondition(failure.status == .usage && failure.message.hasPrefix("SUMS: line "), failure.message)
    } catch {
        preconditionFailure("not a CLIFailure: \(error)")
    }
    return 0
}

private func check(_ batch: BatchFile, lineCount: Int, text: String) {
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    var outputs: Set<String> = []
    var previousLine = 0
    for entry in batch.entries {
        precondition(entry.line > previousLine && entry.line <= lineCount, "entry of line \(entry.line) after \(previousLine)")
        previousLine = entry.line
        precondition(outputs.insert(entry.output.path).inserted, "\(entry.output.path) written twice")
        precondition(entry.output.isFileURL && entry.output.path.hasPrefix("/"))
        for url in [entry.url] + entry.mirrors {
            precondition(["http", "https"].contains(url.scheme?.lowercased() ?? "") && url.host != nil, "\(url)")
        }
        precondition(entry.listedURL == nil, "a listed entry is not a mirror's")
        if let size = entry.size { precondition(size >= 0) }
        if let checksum = entry.checksum { checkLength(checksum) }
        for (name, value) in entry.headers {
            precondition(HeaderOption.isFieldName(name), "header name \(name.debugDescription)")
            precondition(!value.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }, "header value \(value.debugDescription)")
        }
        let line = lines[entry.line - 1].trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("{") { checkRoundTrip(entry) }
        // Mirrors take the entry's place in turn and keep everything but the URL.
        var next = entry.nextMirror()
        for mirror in entry.mirrors {
            guard let current = next else { preconditionFailure("a mirror left out") }
            precondition(current.url == mirror && current.listedURL == entry.url && current.output == entry.output)
            precondition(current.size == entry.size && current.checksum == entry.checksum && current.headers == entry.headers)
            next = current.nextMirror()
        }
        precondition(next == nil)
    }
}

/// `entry` written as a manifest line (its output absolute) parses to the same download.
private func checkRoundTrip(_ entry: BatchFile.Entry) {
    var object: [String: Any] = ["url": entry.url.absoluteString, "output": entry.output.path]
    if !entry.mirrors.isEmpty { object["mirrors"] = entry.mirrors.map(\.absoluteString) }
    if let size = entry.size { object["size"] = size }
    // The manifest's keys are sha256 and sha512 (the algorithm's raw value is the Digest field's sha-256).
    if let checksum = entry.checksum { object[checksum.algorithm == .sha256 ? "sha256" : "sha512"] = ExpectedChecksum.hex(checksum.digest) }
    if !entry.headers.isEmpty { object["headers"] = entry.headers }
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
          let line = String(data: data, encoding: .utf8) else {
        preconditionFailure("an accepted entry cannot be written back: \(object)")
    }
    let again: BatchFile.Entry
    do {
        again = try ManifestLine.entry(parsing: line, line: entry.line, directory: directory)
    } catch {
        preconditionFailure("\(line) written back is refused: \(error)")
    }
    // The output compared by path: a name written with a trailing slash names the same file without it.
    precondition(
        again.url == entry.url && again.mirrors == entry.mirrors && again.output.path == entry.output.path
            && again.size == entry.size && again.checksum == entry.checksum && again.headers == entry.headers,
        "\(line) parses to \(again), not \(entry)"
    )
}

private func checkLength(_ checksum: ExpectedChecksum) {
    let expected = checksum.algorithm == .sha256 ? 32 : 64
    precondition(checksum.digest.count == expected, "\(checksum.algorithm) digest of \(checksum.digest.count) bytes")
}
