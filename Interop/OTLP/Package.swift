// swift-tools-version: 6.2
import PackageDescription

// Courier's telemetry exported through swift-otel's OTLP/HTTP exporter, for scripts/otlp-roundtrip (issue #37): a
// package of its own so that neither the library nor its tests build swift-otel and SwiftProtobuf. CI builds it in
// the main build's scratch folder, where everything but swift-otel is already built:
//   swift build --package-path Interop/OTLP --scratch-path .build --product courier-otlp-probe
let package = Package(
    name: "CourierOTLP",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Courier", path: "../.."),
        // Only the OTLP/HTTP exporter: its gRPC one would also build gRPC Swift.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        .executableTarget(
            name: "courier-otlp-probe",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
