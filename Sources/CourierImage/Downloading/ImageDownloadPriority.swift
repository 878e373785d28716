/// How soon a queued download starts, relative to the others waiting (AFNetworking's operation priorities).
public enum ImageDownloadPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// What ``ImagePrefetcher`` asks for.
    case veryLow = -8
    case low = -4
    /// The default.
    case normal = 0
    case high = 4
    case veryHigh = 8

    public static func < (left: Self, right: Self) -> Bool { left.rawValue < right.rawValue }
}

/// In which order queued downloads of the same priority start.
public enum ImageDownloadPrioritization: Sendable, Hashable {
    /// The first asked for starts first. The default.
    case fifo
    /// The last asked for starts first: what a scrolling list wants, since its newest cells are the ones on screen.
    case lifo
}
