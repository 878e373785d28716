import Foundation

/// The `--output` file, checked before anything is sent.
enum OutputFile {
    /// The file URL for `path` when its directory exists and the file can be written there.
    /// - Throws: ``CLIFailure`` (usage) saying why it cannot.
    static func checked(path: String) throws -> URL {
        let url = URL(fileURLWithPath: path)
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw CLIFailure.usage("cannot write \(path): it is a directory") }
            guard manager.isWritableFile(atPath: url.path) else { throw CLIFailure.usage("cannot write \(path): permission denied") }
            return url
        }
        let directory = url.deletingLastPathComponent().path
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure.usage("cannot write \(path): the directory \(directory) does not exist")
        }
        guard manager.isWritableFile(atPath: directory) else {
            throw CLIFailure.usage("cannot write \(path): the directory \(directory) is not writable")
        }
        return url
    }
}
