import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where `courier download` without `-o` saves the file, chosen once the response is known: the name the server
/// gives in `Content-Disposition` (made safe by ``ContentDispositionName``), else the URL's (``SafeFileName``), in
/// the current directory. A file of that name is replaced only with `--force`; otherwise, as HTTPie does, the first
/// free name with `-1`, `-2`… is taken (put before the extension, where HTTPie puts it after, so that the type stays
/// visible), so a finished download is never thrown away and no file the user has is lost. A directory of that name
/// is never replaced.
struct ServerNamedTarget: Sendable {
    /// The file named after the URL, in the folder the download goes to.
    let urlNamed: URL
    /// `--force`: a file of the chosen name is replaced.
    let replacesFiles: Bool

    /// The name `response` asks for (before a taken name is avoided).
    func wantedName(for response: URLResponse?) -> String {
        let disposition = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Disposition")
        return ContentDispositionName.filename(in: disposition) ?? urlNamed.lastPathComponent
    }

    /// The file to save `response`'s body to.
    func file(for response: URLResponse?) -> URL {
        let wanted = urlNamed.deletingLastPathComponent().appendingPathComponent(wantedName(for: response))
        switch Self.entry(at: wanted) {
        case .none: return wanted
        case .file where replacesFiles: return wanted
        case .file, .directory: return Self.firstFreeName(beside: wanted)
        }
    }

    private enum Entry { case none, file, directory }

    private static func entry(at url: URL) -> Entry {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return .none }
        return isDirectory.boolValue ? .directory : .file
    }

    /// `name-1.ext`, `name-2.ext`… for `name.ext`: the first that does not exist (a name without an extension, or
    /// one starting with its only dot, takes the suffix at its end).
    static func firstFreeName(beside url: URL) -> URL {
        let folder = url.deletingLastPathComponent()
        let name = url.lastPathComponent
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let suffix = dot.map { String(name[$0...]) } ?? ""
        var number = 1
        while true {
            // The stem gives way when the number would make the name longer than a file name may be (255 bytes).
            var shortened = Substring(stem)
            while shortened.utf8.count + "-\(number)\(suffix)".utf8.count > 255, !shortened.isEmpty { shortened.removeLast() }
            let candidate = folder.appendingPathComponent("\(shortened)-\(number)\(suffix)")
            if entry(at: candidate) == .none { return candidate }
            number += 1
        }
    }
}
