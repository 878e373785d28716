extension StringProtocol {
    /// The text without the spaces and tabs (any Unicode white space) at its ends: for a line of a list, already split
    /// at its line breaks, and a header field's value, which holds none. This is `trimmingCharacters(in: .whitespaces)`
    /// without the round trip through `NSString`, which cost a batch of 1,000 small files about 3 % of its CPU.
    var trimmingBlanks: SubSequence {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return self[endIndex..<endIndex]
        }
        return self[first...last]
    }
}
