extension Duration {
    /// The duration in seconds, as a `Double` (for timings and rates shown to people).
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
