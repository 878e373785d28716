import Courier
import Foundation
import Testing
@testable import courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pure parts of `courier download --split`: how a file is cut into segments, how a connection that is done takes
/// half of another's rest, what a saved plan may say, and which `206` belongs to a segment.
@Suite("download --split: the segment plan and the segment check", .timeLimit(.minutes(1)))
struct SegmentPlanTests {
    static let mebibyte: Int64 = 1 << 20

    /// The segment `plan` gives the next connection, which must exist.
    static func assign(_ plan: inout SegmentPlan) throws -> Int {
        let index = plan.assign()
        return try #require(index)
    }

    /// `plan`'s pending range of `index` as `[first, last]`.
    static func pending(_ plan: SegmentPlan, _ index: Int) -> [Int64] {
        let range = plan.pendingRange(of: index)
        return [range.first, range.last]
    }

    @Test func aFileIsCutIntoEqualSegmentsNoSmallerThanTheMinimum() {
        let plan = SegmentPlan(length: 10 * Self.mebibyte + 3, connections: 4, minimumSize: Self.mebibyte)
        #expect(plan.segments.map(\.start) == [0, 2_621_440, 5_242_880, 7_864_320])
        #expect(plan.segments.last?.end == 10 * Self.mebibyte + 3)
        #expect(zip(plan.segments, plan.segments.dropFirst()).allSatisfy { $0.end == $1.start })

        // 3.5 MiB with a 1 MiB minimum: three segments, not four.
        #expect(SegmentPlan(length: 7 * Self.mebibyte / 2, connections: 4, minimumSize: Self.mebibyte).segments.count == 3)
        // Shorter than the minimum: one.
        #expect(SegmentPlan(length: 100, connections: 16, minimumSize: Self.mebibyte).segments.count == 1)
    }

    @Test func aConnectionThatIsDoneTakesHalfOfTheLargestRestOnlyWhenBothHalvesKeepTheMinimum() throws {
        var plan = SegmentPlan(length: 8 * Self.mebibyte, connections: 2, minimumSize: Self.mebibyte)
        let first = try Self.assign(&plan)
        let second = try Self.assign(&plan)
        #expect(first == 0 && second == 1)
        // The first is done; the second has written 1 MiB of its 4.
        #expect(plan.claim(first, upTo: 4 * Self.mebibyte) == 4 * Self.mebibyte)
        plan.confirm(first, 4 * Self.mebibyte)
        plan.release(first)
        #expect(plan.claim(second, upTo: Self.mebibyte) == Self.mebibyte)
        plan.confirm(second, Self.mebibyte)

        // 3 MiB unclaimed ≥ 2 × 1 MiB: halved in the middle of what is left.
        let stolen = try Self.assign(&plan)
        #expect(plan.segments[stolen].start == 6 * Self.mebibyte + Self.mebibyte / 2)
        #expect(plan.segments[second].end == plan.segments[stolen].start)
        #expect(Self.pending(plan, stolen) == [6 * Self.mebibyte + Self.mebibyte / 2, 8 * Self.mebibyte - 1])
        // The owner of the halved segment gets only the bytes up to its new end, then nothing.
        #expect(plan.claim(second, upTo: 4 * Self.mebibyte) == Self.mebibyte + Self.mebibyte / 2)
        #expect(plan.claim(second, upTo: 10) == 0)
        // 1.5 MiB left of each: below 2 × 1 MiB, so no more steals.
        #expect(plan.assign() == nil)
    }

    @Test func bytesClaimedButNotWrittenAreAskedForAgainAfterAFailure() throws {
        var plan = SegmentPlan(length: 4 * Self.mebibyte, connections: 1, minimumSize: Self.mebibyte)
        let index = try Self.assign(&plan)
        #expect(plan.claim(index, upTo: 1000) == 1000)
        plan.confirm(index, 600)
        #expect(plan.written == 600)
        plan.release(index)
        #expect(plan.assign() == index)
        #expect(Self.pending(plan, index) == [600, 4 * Self.mebibyte - 1])
        #expect(!plan.isComplete)
    }

    @Test func aSavedPlanRoundTripsAndOneThatDoesNotDescribeTheFileIsRefused() throws {
        var plan = SegmentPlan(length: 6 * Self.mebibyte, connections: 3, minimumSize: Self.mebibyte)
        let index = try Self.assign(&plan)
        _ = plan.claim(index, upTo: 4096)
        plan.confirm(index, 4096)
        let decoded = try JSONDecoder().decode(SegmentPlan.self, from: JSONEncoder().encode(plan))
        #expect(decoded.written == 4096)
        #expect(decoded.segments.map(\.isAssigned) == [false, false, false])
        #expect(decoded.segments.map(\.claimed) == decoded.segments.map(\.written))

        let broken = [
            #"{"length":10,"minimumSize":1,"segments":[{"start":0,"end":4,"written":0},{"start":5,"end":10,"written":0}]}"#,  // a gap
            #"{"length":10,"minimumSize":1,"segments":[{"start":0,"end":6,"written":0},{"start":5,"end":10,"written":0}]}"#,  // an overlap
            #"{"length":10,"minimumSize":1,"segments":[{"start":0,"end":10,"written":11}]}"#,  // more written than the segment
            #"{"length":10,"minimumSize":1,"segments":[{"start":0,"end":10,"written":-1}]}"#,
            #"{"length":10,"minimumSize":1,"segments":[{"start":0,"end":12,"written":0}]}"#,  // past the file
            #"{"length":10,"minimumSize":1,"segments":[{"start":0,"end":8,"written":0}]}"#,  // short of it
            #"{"length":0,"minimumSize":1,"segments":[]}"#,
        ]
        for text in broken {
            #expect(throws: (any Error).self, "\(text)") { try JSONDecoder().decode(SegmentPlan.self, from: Data(text.utf8)) }
        }
    }

    /// `DownloadResumption.carriesSegment`: the check every segment's `206` passes, the one a single-connection resume
    /// makes, with the range's both ends.
    @Test func onlyTheAskedForBytesOfTheRecordedRepresentationAreASegment() throws {
        let url = try #require(URL(string: "http://127.0.0.1/file"))
        func response(_ status: Int, _ fields: [String: String]) throws -> HTTPURLResponse {
            try #require(HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields))
        }
        let probe = try response(206, ["Content-Range": "bytes 0-0/1000", "Content-Length": "1", "ETag": "\"v1\""])
        let representation = DownloadResumption(offset: 0, response: probe)
        #expect(representation.completeLength == 1000)
        #expect(representation.carriesSegment(probe, first: 0, last: 0))

        let segment = ["Content-Range": "bytes 100-199/1000", "Content-Length": "100", "ETag": "\"v1\""]
        #expect(representation.carriesSegment(try response(206, segment), first: 100, last: 199))
        #expect(!representation.carriesSegment(try response(206, segment), first: 100, last: 299), "another end")
        #expect(!representation.carriesSegment(try response(206, segment), first: 99, last: 199), "another start")
        #expect(!representation.carriesSegment(try response(200, ["Content-Length": "1000", "ETag": "\"v2\""]), first: 100, last: 199))
        var changed = segment
        changed["ETag"] = "\"v2\""
        #expect(!representation.carriesSegment(try response(206, changed), first: 100, last: 199), "another validator")
        changed["ETag"] = "W/\"v1\""
        #expect(!representation.carriesSegment(try response(206, changed), first: 100, last: 199), "a weak validator")
        var longer = segment
        longer["Content-Range"] = "bytes 100-199/2000"
        #expect(!representation.carriesSegment(try response(206, longer), first: 100, last: 199), "another length")
        var lying = segment
        lying["Content-Length"] = "150"
        #expect(!representation.carriesSegment(try response(206, lying), first: 100, last: 199), "a Content-Length for other bytes")
        var coded = segment
        coded["Content-Encoding"] = "gzip"
        #expect(!representation.carriesSegment(try response(206, coded), first: 100, last: 199), "another coding")

        let withoutValidator = DownloadResumption(offset: 0, response: try response(206, ["Content-Range": "bytes 0-0/1000"]))
        #expect(!withoutValidator.carriesSegment(try response(206, ["Content-Range": "bytes 100-199/1000"]), first: 100, last: 199))
    }

    @Test func splitOptionsOutsideTheirRangesAreUsageErrors() throws {
        #expect(try NumericOption.minSplitSize.bytes(OptionNumber(argument: "20M")) == 20 << 20)
        #expect(try NumericOption.minSplitSize.bytes(OptionNumber(argument: "2048k")) == 2 << 20)
        #expect(try NumericOption.minSplitSize.bytes(OptionNumber(argument: "1048576")) == 1 << 20)
        for bad in ["512K", "1025M", "M", "-1M", "1.5M", "99999999999999999999M", "1G", ""] {
            #expect(throws: CLIFailure.self, "\(bad)") { try NumericOption.minSplitSize.bytes(OptionNumber(argument: bad)) }
        }
        for bad in ["0", "17", "two"] {
            #expect(throws: CLIFailure.self, "\(bad)") { try NumericOption.split.count(OptionNumber(argument: bad)) }
        }
    }
}
