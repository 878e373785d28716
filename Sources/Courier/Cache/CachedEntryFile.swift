import Crypto
import Foundation

/// The on-disk form of a ``CachedEntry``: a magic line, the head as JSON, the body, and a SHA-256 of all of it, so
/// that a file torn by a crash or changed by anyone is recognised and discarded, never served.
///
///     "COURIER-CACHE 1\n" | UInt32 head length | head JSON | UInt64 body length | body | SHA-256 of the above
enum CachedEntryFile {
    static let magic = Data("COURIER-CACHE 1\n".utf8)
    /// The largest head accepted when reading (a stored head is a few kilobytes).
    static let maximumHeadLength = 1 << 20
    /// The most bytes a file adds to its entry's body: the magic, the lengths, the largest head and the checksum.
    static let largestFraming = magic.count + 12 + maximumHeadLength + 32

    /// Why a file is not a usable entry.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    private struct Head: Codable {
        var url: String
        var statusCode: Int
        var httpVersion: String
        var headerFields: [CachedEntry.HeaderField]
        var selectingHeaders: [String: String?]
        var requestTime: Date
        var responseTime: Date
    }

    static func encode(_ entry: CachedEntry) throws -> Data {
        let head = Head(
            url: entry.url, statusCode: entry.statusCode, httpVersion: entry.httpVersion, headerFields: entry.headerFields,
            selectingHeaders: entry.selectingHeaders, requestTime: entry.requestTime, responseTime: entry.responseTime
        )
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let headData = try encoder.encode(head)
        var data = magic
        data.reserveCapacity(magic.count + 12 + headData.count + entry.body.count + 32)
        append(UInt32(headData.count), to: &data)
        data.append(headData)
        append(UInt64(entry.body.count), to: &data)
        data.append(entry.body)
        data.append(contentsOf: SHA256.hash(data: data))
        return data
    }

    static func decode(_ data: Data) throws -> CachedEntry {
        var reader = Reader(data: data)
        guard try reader.bytes(magic.count) == magic else { throw Unreadable(description: "not a Courier cache entry") }
        let headLength = Int(try reader.integer(UInt32.self))
        guard headLength <= maximumHeadLength else { throw Unreadable(description: "a head of \(headLength) bytes") }
        let headData = try reader.bytes(headLength)
        let bodyLength = try reader.integer(UInt64.self)
        guard bodyLength <= UInt64(reader.remaining) else { throw Unreadable(description: "shorter than its body") }
        let body = try reader.bytes(Int(bodyLength))
        let checked = reader.offset
        let digest = try reader.bytes(SHA256.byteCount)
        guard reader.remaining == 0 else { throw Unreadable(description: "bytes after its checksum") }
        guard Data(SHA256.hash(data: data.prefix(checked))) == digest else {
            throw Unreadable(description: "a checksum that does not match (torn or changed)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let head: Head
        do {
            head = try decoder.decode(Head.self, from: headData)
        } catch {
            throw Unreadable(description: "an unreadable head")
        }
        return CachedEntry(
            url: head.url, statusCode: head.statusCode, httpVersion: head.httpVersion, headerFields: head.headerFields,
            selectingHeaders: head.selectingHeaders, requestTime: head.requestTime, responseTime: head.responseTime,
            body: body
        )
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    /// Reads a file's bytes in order; every read is bounds-checked.
    private struct Reader {
        let data: Data
        var offset = 0

        var remaining: Int { data.count - offset }

        mutating func bytes(_ count: Int) throws -> Data {
            guard count >= 0, count <= remaining else { throw Unreadable(description: "cut short") }
            let start = data.startIndex + offset
            offset += count
            return data.subdata(in: start..<(start + count))
        }

        mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
            let raw = try bytes(MemoryLayout<Integer>.size)
            return raw.reduce(Integer.zero) { ($0 << 8) | Integer($1) }
        }
    }
}
