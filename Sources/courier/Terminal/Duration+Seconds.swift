/// Durations as the fractional seconds progress and summaries print.
extension Duration {
    /// The duration in seconds, with its fraction (attoseconds folded in).
    var inSeconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
