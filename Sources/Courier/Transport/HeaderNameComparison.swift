extension StringProtocol {
    /// Whether this header name is `name`, ignoring ASCII case as HTTP does.
    ///
    /// A byte loop over UTF-8: `caseInsensitiveCompare` goes through Foundation's string bridging
    /// and locale machinery, which showed up on every request's profile.
    func isHeaderName(_ name: String) -> Bool {
        let own = utf8
        let other = name.utf8
        guard own.count == other.count else { return false }
        for (left, right) in zip(own, other) where left != right {
            // ASCII letters differ only in bit 0x20; anything else must match exactly.
            let folded = left | 0x20
            guard folded == right | 0x20, folded >= UInt8(ascii: "a"), folded <= UInt8(ascii: "z") else { return false }
        }
        return true
    }
}
