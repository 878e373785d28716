import Dispatch

/// Where completion and progress blocks run: on ``queue`` (the main queue when `nil`), inside
/// ``group`` when one is given, as AFNetworking's `completionQueue` and `completionGroup` do.
struct CompletionContext: Sendable {
    /// The queue; `nil` means the main queue. Default `nil`.
    var queue: DispatchQueue?
    /// The group the block runs inside, so callers can wait for a set of completions. Default `nil`.
    var group: DispatchGroup?

    /// Creates a context.
    init(queue: DispatchQueue? = nil, group: DispatchGroup? = nil) {
        self.queue = queue
        self.group = group
    }

    /// Runs `work` asynchronously on the queue, inside the group.
    func deliver(_ work: @escaping @Sendable () -> Void) {
        let target = queue ?? .main
        if let group {
            target.async(group: group, execute: work)
        } else {
            target.async(execute: work)
        }
    }
}
