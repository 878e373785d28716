import Foundation

/// The header values every ``HTTPRequestSerializer`` starts with, and the `User-Agent` `DefaultHeadersStage` gives
/// a request that has none.
enum DefaultRequestHeaders {
    /// `Accept-Language` for the given preferred languages: the first at `q=1`, each next one
    /// 0.1 lower, stopping after `q=0.5` (at most six languages), joined by `, `.
    /// For example `en-US;q=1, fr;q=0.9`. Empty when there is no language.
    static func acceptLanguage(for languages: [String]) -> String {
        languages.prefix(6).enumerated().map { index, language in
            let tenths = 10 - index
            let quality = tenths == 10 ? "1" : "0.\(tenths)"
            return "\(language);q=\(quality)"
        }.joined(separator: ", ")
    }

    /// The process's preferred languages, or `en` when the system reports none.
    static var processLanguages: [String] {
        let languages = Locale.preferredLanguages.filter { !$0.isEmpty }
        return languages.isEmpty ? ["en"] : languages
    }

    /// `User-Agent` in the form `Executable/Version (OS version)`, ASCII only, e.g.
    /// `courier/1.2 (Linux 6.8.0)`.
    ///
    /// The executable is the bundle's executable name or the process name; the version is the
    /// bundle's short version, its build version, or `0` when the executable has no bundle
    /// information (the usual case on Linux).
    static func userAgent(bundleInfo: [String: Any]?, processName: String, operatingSystem: String) -> String {
        let executable = (bundleInfo?["CFBundleExecutable"] as? String)
            ?? (bundleInfo?["CFBundleIdentifier"] as? String)
            ?? processName
        let version = (bundleInfo?["CFBundleShortVersionString"] as? String)
            ?? (bundleInfo?["CFBundleVersion"] as? String)
            ?? "0"
        return asciiOnly("\(executable)/\(version) (\(operatingSystem))")
    }

    /// The user agent for this process (worked out once: the bundle, the process name and the system do not change).
    static let processUserAgent: String = {
        userAgent(bundleInfo: Bundle.main.infoDictionary,
                  processName: ProcessInfo.processInfo.processName,
                  operatingSystem: operatingSystemDescription)
    }()

    /// `Linux 6.8.0`, `macOS 15.1.0`, ...
    static var operatingSystemDescription: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let number = "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
        #if os(Linux)
        return "Linux \(number)"
        #elseif os(macOS)
        return "macOS \(number)"
        #elseif os(iOS)
        return "iOS \(number)"
        #elseif os(tvOS)
        return "tvOS \(number)"
        #elseif os(watchOS)
        return "watchOS \(number)"
        #elseif os(Windows)
        return "Windows \(number)"
        #else
        return "Unknown \(number)"
        #endif
    }

    /// Removes accents, then any remaining non-ASCII character or control character, since header
    /// values must be ASCII.
    static func asciiOnly(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        return String(String.UnicodeScalarView(folded.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }))
    }
}
