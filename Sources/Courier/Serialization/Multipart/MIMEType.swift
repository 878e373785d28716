import Foundation
#if canImport(UniformTypeIdentifiers)
import UniformTypeIdentifiers
#endif

/// MIME types inferred from file name extensions, for file parts of multipart forms.
///
/// As AFNetworking asked the operating system, Courier asks the system's type database first: on
/// Apple platforms Uniform Type Identifiers; elsewhere the `mime.types` files that Python's
/// `mimetypes`, Apache and many Unix tools read (`/etc/mime.types` comes with Debian's
/// `media-types` package), later files overriding earlier ones. Courier's own table is the
/// fallback; unknown extensions give `application/octet-stream`.
enum MIMEType {
    /// The MIME type for a path extension (case-insensitive, without the dot).
    static func forPathExtension(_ pathExtension: String) -> String {
        let key = pathExtension.lowercased()
        return systemType(forPathExtension: key) ?? table[key] ?? "application/octet-stream"
    }

    /// The `mime.types` files read, in order (the list Python's `mimetypes.knownfiles` reads).
    static let databaseFiles = [
        "/etc/mime.types", "/etc/httpd/mime.types", "/etc/httpd/conf/mime.types", "/etc/apache/mime.types",
        "/etc/apache2/mime.types", "/usr/local/etc/httpd/conf/mime.types", "/usr/local/etc/mime.types",
    ]

    #if canImport(UniformTypeIdentifiers)
    private static func systemType(forPathExtension key: String) -> String? {
        UTType(filenameExtension: key)?.preferredMIMEType
    }
    #else
    private static func systemType(forPathExtension key: String) -> String? {
        systemDatabase[key]
    }

    /// The system's database, read once.
    private static let systemDatabase: [String: String] = databaseFiles.reduce(into: [:]) { types, path in
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        types.merge(parseDatabase(text)) { _, later in later }
    }
    #endif

    /// The extension → type map of a `mime.types` file: `type/subtype ext ext …` per line, `#` comments.
    /// A later line wins for an extension listed twice, as in Python's reader. (Hand-written: no
    /// maintained Swift package reads this format, and it is one split per line.)
    static func parseDatabase(_ text: String) -> [String: String] {
        var types: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let content = line.prefix { $0 != "#" }
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let type = fields.first, type.contains("/") else { continue }
            for pathExtension in fields.dropFirst() {
                types[pathExtension.lowercased()] = type.lowercased()
            }
        }
        return types
    }

    private static let table: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript",
        "json": "application/json", "xml": "application/xml", "plist": "application/x-plist",
        "pdf": "application/pdf", "rtf": "application/rtf", "zip": "application/zip",
        "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "7z": "application/x-7z-compressed", "bin": "application/octet-stream",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "bmp": "image/bmp", "webp": "image/webp", "tif": "image/tiff", "tiff": "image/tiff",
        "ico": "image/x-icon", "svg": "image/svg+xml", "heic": "image/heic", "avif": "image/avif",
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "m4a": "audio/mp4",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "cer": "application/x-x509-ca-cert", "crt": "application/x-x509-ca-cert", "der": "application/x-x509-ca-cert",
    ]
}
