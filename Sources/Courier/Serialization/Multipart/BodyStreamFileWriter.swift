import Foundation

/// Copies an `InputStream` into a file, 64 KiB at a time.
enum BodyStreamFileWriter {
    static let chunkSize = 64 * 1024

    /// Opens `stream`, writes all of it to `fileURL` (created or truncated), closes both.
    ///
    /// - Throws: ``RequestSerializationError/fileWriteFailed(_:)`` or the stream's error.
    static func write(_ stream: InputStream, to fileURL: URL) throws {
        guard FileManager.default.createFile(atPath: fileURL.path, contents: nil) else {
            throw RequestSerializationError.fileWriteFailed("cannot create \(fileURL.path)")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: fileURL)
        } catch {
            throw RequestSerializationError.fileWriteFailed(String(describing: error))
        }
        defer { try? handle.close() }
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
                guard let base = pointer.baseAddress else { return -1 }
                return stream.read(base, maxLength: chunkSize)
            }
            if count == 0 { break }
            guard count > 0 else {
                throw stream.streamError ?? RequestSerializationError.fileWriteFailed("the body stream failed")
            }
            do {
                try handle.write(contentsOf: buffer[0..<count])
            } catch {
                throw RequestSerializationError.fileWriteFailed(String(describing: error))
            }
        }
    }
}
