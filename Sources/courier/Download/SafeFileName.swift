import Foundation

/// A name a server chose (in `Content-Disposition`, or as the last segment of a URL path) made safe to create in
/// the current directory, as browsers treat a hostile name: only its last path component is kept (`/` and `\`
/// both count), control characters go, leading dots go (no hidden files, no `..`), and it is cut to 255 bytes.
enum SafeFileName {
    /// `name` reduced to a plain file name, or `nil` when nothing usable is left.
    static func sanitized(_ name: String) -> String? {
        let last = name.replacingOccurrences(of: "\\", with: "/").split(separator: "/").last.map(String.init) ?? ""
        var cleaned = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        // Cut first, so that the trimming below also takes white space the cut leaves at the end.
        while cleaned.utf8.count > 255 { cleaned.removeLast() }
        // Dots and white space are stripped in turn until neither leads: ". .." must not become "..".
        while true {
            let trimmed = String(cleaned.trimmingCharacters(in: .whitespaces).drop { $0 == "." })
            if trimmed == cleaned { break }
            cleaned = trimmed
        }
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? nil : cleaned
    }

    /// The name for a download of `url` when neither `-o` nor `Content-Disposition` gives one: its last path segment,
    /// percent-decoded and made safe, or `index.html` when nothing usable is left (`/`, `/..`, `/%2F..`).
    static func forURL(_ url: URL) -> String {
        let encoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        let segment = encoded.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        return sanitized(segment.removingPercentEncoding ?? segment) ?? "index.html"
    }
}
