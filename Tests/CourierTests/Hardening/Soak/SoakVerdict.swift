/// Whether a soak's samples drift: for each measure, the median of the last fifth of the run against the median of
/// the fifth right after the warm-up. Medians, because one busy second (a burst of downloads holding descriptors, a
/// collection not yet run) must not decide; a leak shows as a level that keeps rising, which moves the median.
struct SoakVerdict {
    /// A measure that grew by more than its allowance.
    struct Growth: CustomStringConvertible {
        let measure: String
        let early: Int
        let late: Int
        let allowed: Int

        var description: String { "\(measure) grew from \(early) to \(late) (allowed \(allowed) more)" }
    }

    /// The start (first sample after warm-up) and end figures, for the report.
    let early: ProcessSample?
    let late: ProcessSample?
    let growths: [Growth]

    /// Judges `samples` (one per second, in order), the first `warmUp` seconds excluded: descriptors and
    /// connections may rise by `countSlack`, the resident size by `residentSlackKiB` or `residentFraction` of its
    /// early level, whichever is more.
    init(samples: [ProcessSample], warmUp: Double, countSlack: Int = 8, residentSlackKiB: Int = 16 * 1024, residentFraction: Double = 0.1) {
        let settled = samples.filter { $0.elapsed >= warmUp }
        let window = max(1, settled.count / 5)
        guard settled.count >= 2 * window, settled.count >= 4 else {
            early = nil
            late = nil
            growths = [Growth(measure: "samples after the warm-up", early: settled.count, late: settled.count, allowed: 0)]
            return
        }
        let first = Array(settled.prefix(window)), last = Array(settled.suffix(window))
        early = settled.first
        late = settled.last
        func median(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }
        var found: [Growth] = []
        func check(_ measure: String, _ value: (ProcessSample) -> Int, allowed: (Int) -> Int) {
            let before = median(first.map(value)), after = median(last.map(value))
            let allowance = allowed(before)
            if after - before > allowance { found.append(Growth(measure: measure, early: before, late: after, allowed: allowance)) }
        }
        check("open descriptors", \.descriptors) { _ in countSlack }
        check("TCP connections", \.connections) { _ in countSlack }
        check("resident KiB", \.residentKiB) { max(residentSlackKiB, Int(Double($0) * residentFraction)) }
        growths = found
    }
}
