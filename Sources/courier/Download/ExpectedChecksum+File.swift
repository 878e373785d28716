import Foundation

// Apart from ExpectedChecksum.swift, which parses a digest and needs nothing but Foundation (the batch manifest's
// fuzz target compiles it alone); hashing a file takes the download's integrity check and swift-crypto.
extension ExpectedChecksum {
    /// Whether `file` (all of it) has this digest.
    /// - Throws: The errors of reading the file.
    func matches(_ file: URL) throws -> Bool {
        try IntegrityCheck.hash(file, from: 0, algorithm: algorithm) == digest
    }
}
