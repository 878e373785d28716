import NIOCore

extension Channel {
    /// Runs `body` on the channel's event loop (the engine calls its connection hooks from another loop at times),
    /// unless the channel has already closed: then its handlers are gone, nothing can pass through what `body` would
    /// add, and the engine reports the connection's own failure (a TLS alert, say) rather than a missing handler.
    func configuringPipelineIfActive(_ body: @escaping @Sendable () throws -> Void) -> EventLoopFuture<Void> {
        let guarded: @Sendable () throws -> Void = { [self] in
            guard isActive else { return }
            try body()
        }
        if eventLoop.inEventLoop {
            return eventLoop.makeCompletedFuture(Result(catching: guarded))
        }
        return eventLoop.submit(guarded)
    }
}
