// swift-tools-version: 6.2
import Foundation
import PackageDescription

// `COURIER_SANITIZE=thread` or `=address` (`.ci/run`'s sanitizer steps) builds Courier's own targets with that
// sanitizer on top of the plain debug build of its dependencies, in the same `.build`: only Courier's code is
// rebuilt (a fresh machine would otherwise build every dependency twice more), and only Courier's code is checked,
// which is what the steps are for. Line tables (not full debug information) are enough for the reports' file:line.
// `thread` also gives Courier and its tests a pthread-based `Mutex` that ThreadSanitizer can see (see
// Sources/Courier/Concurrency/ThreadSanitizerMutex.swift; `COURIER_TSAN_LOCKS` alone does the same).
let sanitizer = Context.environment["COURIER_SANITIZE"].flatMap { ["thread", "address"].contains($0) ? $0 : nil }
let sanitized: [SwiftSetting] = sanitizer.map { [.unsafeFlags(["-sanitize=\($0)", "-gline-tables-only"])] } ?? []
let sanitizedLink: [LinkerSetting] = sanitizer.map { [.unsafeFlags(["-sanitize=\($0)"])] } ?? []
let threadSanitizerLocks: [SwiftSetting] =
    Context.environment["COURIER_TSAN_LOCKS"] == nil && sanitizer != "thread" ? [] : [.define("COURIER_TSAN_LOCKS")]

// CourierImage decodes through the system's image libraries on Linux (Debian: `apt-get install libjpeg62-turbo-dev
// libpng-dev libwebp-dev libgif-dev`). Where their headers are not installed, CImageCodecs is built without them, so
// that a fresh machine still builds and tests everything else: every decode then throws `.unsupported` naming that
// apt line (`ImageDecoder.canDecode` is false), and the image tests are skipped saying so (`.ci/run` installs the
// libraries and fails when they were skipped). `COURIER_IMAGE_CODECS=0` builds without them on purpose. SwiftPM
// caches this manifest's result: after installing the libraries, `touch Package.swift` (or build with a new
// `.build`) so that it looks again.
let systemImageCodecs: Bool = {
    #if os(Linux)
    guard Context.environment["COURIER_IMAGE_CODECS"] != "0" else { return false }
    return ["jpeglib.h", "png.h", "webp/decode.h", "webp/demux.h", "gif_lib.h"].allSatisfy { header in
        ["/usr/include/", "/usr/local/include/"].contains { FileManager.default.fileExists(atPath: $0 + header) }
    }
    #else
    return false
    #endif
}()

let package = Package(
    name: "Courier",
    // `Mutex` (Synchronization) needs these releases on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierTestServer", targets: ["CourierTestServer"]),
        // A swift-openapi-runtime `ClientTransport` over a Courier session, for generated OpenAPI clients.
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        // Images decoded to pixels (JPEG and PNG through the system's libjpeg-turbo and libpng on Linux, ImageIO on
        // Apple platforms), kept out of the core so that a user who needs no images links no image library.
        .library(name: "CourierImage", targets: ["CourierImage"]),
        // Requests that survive a crash: a durable queue on SQLite (sqlite-nio), drained at least once with retries.
        .library(name: "CourierQueue", targets: ["CourierQueue"]),
        // The queue's PostgreSQL store (postgres-nio), for workers on many machines; a product of its own so that the
        // embedded queue links no PostgreSQL client.
        .library(name: "CourierQueuePostgres", targets: ["CourierQueuePostgres"]),
        .executable(name: "courier", targets: ["courier"]),
    ],
    // What a user who only wants sessions can leave out: `.package(url: …, from: …, traits: [])` builds Courier
    // without them. Each only adds API, behaviour or a tool (the default, all four, is the full package).
    traits: [
        .trait(
            name: "Reachability",
            description: "NetworkReachabilityManager watches the network (netlink on Linux, SystemConfiguration on Apple platforms); without it the status stays unknown."
        ),
        .trait(
            name: "XMLSerialization",
            description: "XMLParserResponseSerializer and XMLDocumentResponseSerializer (FoundationXML on Linux)."
        ),
        .trait(
            name: "ServiceLifecycle",
            description: "A session is a swift-service-lifecycle Service (and the package is a dependency)."
        ),
        .trait(
            name: "Tools",
            description: "The courier command and the test server need it (they are built only with it); without it, a package that depends on Courier does not resolve their dependencies, Hummingbird and swift-argument-parser."
        ),
        .default(enabledTraits: ["Reachability", "XMLSerialization", "ServiceLifecycle", "Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // OpenTelemetry's attribute names as constants (measurements' dimensions); without its `Tracing` trait, the
        // span-attribute extensions Courier does not use are not built.
        .package(url: "https://github.com/swift-otel/swift-otel-semantic-conventions", from: "1.44.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        // Without its ConfigurationSupport trait: the test server reads no swift-configuration, which is then not built.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.0"),
        // Streaming gzip/deflate decoding of response bodies (zlib through a maintained wrapper).
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // Builds the DocC catalog (`swift package generate-documentation`; checked in CI).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // `ClientTransport` for clients generated by swift-openapi-generator (CourierOpenAPI only).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Tests only (the `Tools` trait): Courier's measurements in Prometheus's text format, as a service scraped by
        // Prometheus records them.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
    ],
    targets: [
        .target(
            name: "Courier",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "OTelSemanticConventions", package: "swift-otel-semantic-conventions"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: threadSanitizerLocks + sanitized
        ),
        // The setjmp/longjmp boundary around libjpeg-turbo and libpng, with libwebp and giflib behind the same interface
        // (Debian: libjpeg62-turbo-dev, libpng-dev, libwebp-dev, libgif-dev).
        .target(
            name: "CImageCodecs",
            cSettings: (sanitizer.map { [.unsafeFlags(["-fsanitize=\($0)"])] } ?? [])
                + (systemImageCodecs ? [.define("COURIER_SYSTEM_CODECS", .when(platforms: [.linux]))] : []),
            linkerSettings: systemImageCodecs
                ? ["jpeg", "png16", "webp", "webpdemux", "gif"].map { .linkedLibrary($0, .when(platforms: [.linux])) } : []
        ),
        .target(
            name: "CourierImage",
            dependencies: [
                "Courier",
                .target(name: "CImageCodecs", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // Its locks use the same pthread-based shim in TSan builds (a link to Courier's file).
            swiftSettings: threadSanitizerLocks + sanitized
        ),
        .target(
            name: "CourierQueue",
            dependencies: [
                "Courier",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            // Its locks use the same pthread-based shim in TSan builds (a link to Courier's file).
            swiftSettings: threadSanitizerLocks + sanitized
        ),
        .target(
            name: "CourierQueuePostgres",
            dependencies: [
                "Courier",
                "CourierQueue",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: threadSanitizerLocks + sanitized
        ),
        .target(
            name: "CourierOpenAPI",
            dependencies: [
                "Courier",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: sanitized
        ),
        // StubTransport: users test their own code that uses Courier without a server.
        // Its stubs lock with `Mutex` too: the same pthread-based shim in TSan builds (a link to Courier's file).
        .target(
            name: "CourierTesting",
            dependencies: ["Courier"],
            swiftSettings: threadSanitizerLocks + sanitized
        ),
        .target(
            name: "CourierTestServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdHTTP2", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: sanitized
        ),
        .executableTarget(
            name: "courier",
            dependencies: [
                "Courier",
                "CourierImage",
                "CourierQueue",
                "CourierQueuePostgres",
                "CourierTestServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: threadSanitizerLocks + sanitized,
            linkerSettings: sanitizedLink
        ),
        // A child process for the graceful-shutdown lease tests (signals cannot be sent to the test runner).
        .executableTarget(
            name: "CourierLeaseProbe",
            dependencies: ["Courier", "CourierTestServer"],
            swiftSettings: sanitized,
            linkerSettings: sanitizedLink
        ),
        // A child process for the swift-service-lifecycle tests: a ServiceGroup receiving a real SIGTERM.
        .executableTarget(
            name: "CourierServiceProbe",
            dependencies: [
                "Courier",
                "CourierTestServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: sanitized,
            linkerSettings: sanitizedLink
        ),
        .testTarget(
            name: "CourierTests",
            dependencies: [
                "Courier",
                "CourierTesting",
                "CourierTestServer",
                "CourierOpenAPI",
                // The image downloader's behaviour against nginx (its decoding is CourierImageTests').
                "CourierImage",
                // The durable queue against the test server, and `courier queue drain` killed midway; its bad-input
                // tests edit the store's rows directly.
                "CourierQueue",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                // The queue's semantics on PostgreSQL too, and its workers sharing one database.
                "CourierQueuePostgres",
                // The CLI's pure parts (progress formatting, batch files) are unit-tested; this also builds
                // the `courier` binary that the end-to-end tests run.
                "courier",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                // Measurements in Prometheus's text format, read back by prometheus-client (PrometheusExportTests).
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
                // Encodes the gzip and deflate bodies the decoding stage's unit tests feed it.
                .product(name: "CompressNIO", package: "compress-nio"),
                // The OpenAPI transport's tests call `ClientTransport.send` with HTTPTypes values.
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: threadSanitizerLocks + sanitized,
            linkerSettings: sanitizedLink
        ),
        .testTarget(
            name: "CourierImageTests",
            dependencies: ["Courier", "CourierImage"],
            swiftSettings: sanitized,
            linkerSettings: sanitizedLink
        ),
        .testTarget(
            name: "CourierTestServerTests",
            dependencies: [
                "CourierTestServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: sanitized,
            linkerSettings: sanitizedLink
        ),
    ],
    swiftLanguageModes: [.v6]
)
