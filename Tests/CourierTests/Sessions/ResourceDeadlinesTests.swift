import Dispatch
import Synchronization
import Testing
@testable import Courier

@Suite("Sessions: resource deadlines share one timer")
struct ResourceDeadlinesTests {
    final class Owner {}

    @Test func eachDeadlineExpiresInOrderAndARemovedOneNever() async throws {
        let deadlines = ResourceDeadlines()
        let expired = Mutex<[String]>([])
        let late = Owner(), early = Owner(), removed = Owner()
        deadlines.add(late, deadline: .now() + .milliseconds(800)) { expired.withLock { $0.append("late") } }
        // Earlier than the armed deadline: the timer is re-armed for it.
        deadlines.add(early, deadline: .now() + .milliseconds(50)) { expired.withLock { $0.append("early") } }
        deadlines.add(removed, deadline: .now() + .milliseconds(100)) { expired.withLock { $0.append("removed") } }
        deadlines.remove(removed)

        #expect(await eventually { expired.withLock { $0.contains("early") } })
        #expect(await eventually { expired.withLock { $0.contains("late") } })
        #expect(expired.withLock { $0 } == ["early", "late"])
        withExtendedLifetime((late, early, removed)) {}
    }
}
