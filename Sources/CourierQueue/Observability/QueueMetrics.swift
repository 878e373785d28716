import CoreMetrics
import Foundation

/// The queue's swift-metrics instruments, each with a `queue` dimension naming the queue:
/// `courier_queue_depth` (gauge: jobs pending or running), `courier_queue_oldest_job_age_seconds` (gauge),
/// `courier_queue_attempts_total`, `courier_queue_retries_total`, `courier_queue_succeeded_total` and
/// `courier_queue_dead_letters_total` (counters).
struct QueueMetrics: Sendable {
    let depth: Gauge
    let oldestAge: Gauge
    let attempts: Counter
    let retries: Counter
    let succeeded: Counter
    let deadLetters: Counter

    /// The instruments of the queue `name`, made by `factory` (default: the process's `MetricsSystem`).
    init(queue name: String, factory: (any MetricsFactory)?) {
        let dimensions = [("queue", name)]
        let factory = factory ?? MetricsSystem.factory
        depth = Gauge(label: "courier_queue_depth", dimensions: dimensions, factory: factory)
        oldestAge = Gauge(label: "courier_queue_oldest_job_age_seconds", dimensions: dimensions, factory: factory)
        attempts = Counter(label: "courier_queue_attempts_total", dimensions: dimensions, factory: factory)
        retries = Counter(label: "courier_queue_retries_total", dimensions: dimensions, factory: factory)
        succeeded = Counter(label: "courier_queue_succeeded_total", dimensions: dimensions, factory: factory)
        deadLetters = Counter(label: "courier_queue_dead_letters_total", dimensions: dimensions, factory: factory)
    }

    func record(_ schedule: QueueSchedule, now: Date) {
        depth.record(schedule.pending + schedule.running)
        oldestAge.record(schedule.oldestEnqueuedAt.map { max(0, now.timeIntervalSince($0)) } ?? 0)
    }
}
