import CourierTestServer
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A TLS server on 127.0.0.1 presenting a given chain, and a client that completes a handshake with it.
struct LoopbackTLS {
    /// Why the client's handshake did not complete.
    struct HandshakeFailed: Error {
        var underlying: any Error
    }

    let group: MultiThreadedEventLoopGroup
    let server: any Channel

    /// Starts a server presenting `chain` (leaf first) with `key`, the leaf's private key.
    static func start(chain: [IssuedCertificate], key: IssuedCertificate) async throws -> LoopbackTLS {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let certificates = try chain.map { try NIOSSLCertificate(bytes: Array($0.derBytes), format: .der) }
        let privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemPrivateKey.utf8), format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) },
            privateKey: .privateKey(privateKey)
        )
        let context = try NIOSSLContext(configuration: configuration)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return LoopbackTLS(group: group, server: server)
    }

    /// Connects with `configuration`, sending `serverHostname` as SNI, and returns the channel once the handshake is done.
    func connect(configuration: TLSConfiguration, serverHostname: String?) async throws -> any Channel {
        try await connect(context: try NIOSSLContext(configuration: configuration), serverHostname: serverHostname)
    }

    /// Connects with a ready TLS `context` (building one loads the system trust store, which takes a while).
    func connect(context: NIOSSLContext, serverHostname: String?) async throws -> any Channel {
        let handshake = group.next().makePromise(of: Void.self)
        let port = server.localAddress?.port ?? 0
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverHostname))
                    try sync.addHandler(HandshakeObserver(promise: handshake))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        do {
            try await handshake.futureResult.get()
        } catch {
            try? await channel.close()
            throw HandshakeFailed(underlying: error)
        }
        return channel
    }

    func stop() async throws {
        try await server.close()
        try await group.shutdownGracefully()
    }
}

/// Completes a promise when the TLS handshake completes or the channel fails first.
private final class HandshakeObserver: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            promise.succeed()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
