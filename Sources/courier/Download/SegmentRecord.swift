import Courier
import Foundation

/// What `courier download --split` keeps beside `FILE.part` (as `FILE.courier-segments`): the URL the segments are
/// fetched from (after redirects), the representation they belong to (its validators, length and coding, as a
/// single-connection resume records them) and the ``SegmentPlan`` with what of each segment is on disk. Written
/// before the first byte and about once a second while the bytes arrive, so a download killed at any point continues
/// each segment with `--continue`.
struct SegmentRecord: Codable, Equatable, Sendable {
    /// The URL the segments are asked from.
    let url: URL
    /// The representation's validators, length and coding; every segment's `206` is checked against it.
    let representation: DownloadResumption
    /// The segments and their bytes on disk.
    var plan: SegmentPlan
}
