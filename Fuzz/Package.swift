// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for the parsers and checks Courier writes itself. Their sources are symlinks to the
// files in ../Sources/Courier (the same files, not copies). FuzzRequestURL also links AsyncHTTPClient: it
// drives URLs up to the engine's request type. FuzzCacheEntry links swift-crypto (already built for
// AsyncHTTPClient): the cache's entry files end in a SHA-256. FuzzCertificateFile links swift-certificates, whose
// parsers Courier's certificate and key loading calls.
// Build: swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// See README.md.
let package = Package(
    name: "CourierFuzz",
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.0"),
    ],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzMediaType", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzImageHeader", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzCharsetDecoding", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzSetCookie", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzRequestHeader", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzContentDisposition", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzChallenge", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzResumeData", dependencies: ["FuzzDriver"]),
        // Its files are built by Courier only with the Reachability trait: defined here as a default build has it.
        .executableTarget(name: "FuzzNetlink", dependencies: ["FuzzDriver"], swiftSettings: [.define("Reachability")]),
        .executableTarget(name: "FuzzQueryString", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzMultipart", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzIntegrityHeader", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzOperationArchive", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzBatchManifest", dependencies: ["FuzzDriver"]),
        // CourierImage's decoders (their Swift files linked into each target, with Fuzz/Shared's common check) over
        // the C boundary around libjpeg-turbo, libpng, libwebp and giflib; the boundary's C is instrumented for
        // libFuzzer and ASan too (the system libraries are not).
        .target(
            name: "CImageCodecs",
            cSettings: [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"]), .define("COURIER_SYSTEM_CODECS")],
            linkerSettings: ["jpeg", "png16", "webp", "webpdemux", "gif"].map { .linkedLibrary($0) }
        ),
        .executableTarget(name: "FuzzJPEGDecoder", dependencies: ["FuzzDriver", "CImageCodecs"]),
        .executableTarget(name: "FuzzPNGDecoder", dependencies: ["FuzzDriver", "CImageCodecs"]),
        .executableTarget(name: "FuzzWebPDecoder", dependencies: ["FuzzDriver", "CImageCodecs"]),
        .executableTarget(name: "FuzzGIFDecoder", dependencies: ["FuzzDriver", "CImageCodecs"]),
        .executableTarget(
            name: "FuzzCacheEntry",
            dependencies: ["FuzzDriver", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .executableTarget(
            name: "FuzzCertificateFile",
            dependencies: [
                "FuzzDriver", .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .executableTarget(
            name: "FuzzRequestURL",
            dependencies: ["FuzzDriver", .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
