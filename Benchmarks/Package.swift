// swift-tools-version: 6.1
import PackageDescription

// Courier's benchmarks: a separate package so the library's own build never pulls in the benchmark tooling.
//   swift package benchmark                               # micro and macro benchmarks (package-benchmark)
//   swift package benchmark thresholds check              # fails when a p90 regresses past Thresholds/
//   swift build -c release --product bench-client         # the client scripts/bench-compare drives
//   swift build -c release --product bench-image          # the decoder scripts/bench-images drives
let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    ],
    targets: [
        // One process per measurement for scripts/bench-compare: `--library courier|ahc|urlsession --workload ...`.
        .executableTarget(
            name: "bench-client",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTestServer", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The engine alone fetching a batch of files (scripts/bench-downloads): the floor under `courier batch`.
        .executableTarget(
            name: "bench-batch",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Decoding throughput and the scaled-thumbnail path for scripts/bench-images (against Pillow).
        .executableTarget(
            name: "bench-image",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierImage", package: "Courier"),
            ]
        ),
        // Enqueue and drain rates of the durable queue (scripts/bench-queue), against raw sqlite-nio and direct sends.
        .executableTarget(
            name: "bench-queue",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierQueue", package: "Courier"),
                .product(name: "CourierQueuePostgres", package: "Courier"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        .executableTarget(
            name: "CourierBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTestServer", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/CourierBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
