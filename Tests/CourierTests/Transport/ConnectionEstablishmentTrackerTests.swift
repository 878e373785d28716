import Foundation
import Testing
@testable import Courier

@Suite("Transport: attributing new connections to waiting requests")
struct ConnectionEstablishmentTrackerTests {
    @Test("one waiting request gets the connection that became ready")
    func singleWaiter() {
        let tracker = ConnectionEstablishmentTracker(isSecure: true)
        let ticket = tracker.begin()
        tracker.connectionReady()
        tracker.headSent(ticket)
        let connection = tracker.finish(ticket)
        #expect(connection?.isSecure == true)
        #expect(connection.map { $0.start <= $0.end } == true)
        #expect(tracker.finish(ticket) == nil, "a ticket is finished once")
    }

    @Test("a request already on a connection is not waiting; two waiting at once get nothing")
    func ambiguity() {
        let tracker = ConnectionEstablishmentTracker(isSecure: false)
        let sent = tracker.begin()
        tracker.headSent(sent)
        let first = tracker.begin()
        let second = tracker.begin()
        tracker.connectionReady()
        #expect(tracker.finish(first) == nil && tracker.finish(second) == nil)
        #expect(tracker.finish(sent) == nil)
        let third = tracker.begin()
        tracker.connectionReady()
        #expect(tracker.finish(third)?.isSecure == false)
    }

    @Test("a connection ready while nobody waits is not kept for a later request")
    func nobodyWaiting() {
        let tracker = ConnectionEstablishmentTracker(isSecure: false)
        tracker.connectionReady()
        let ticket = tracker.begin()
        #expect(tracker.finish(ticket) == nil)
    }
}
