// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for the parsers Courier writes itself. The parser sources are symlinks to the
// files in ../Sources/Courier/Serialization/Response (the same files, not copies).
// Build: swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// See README.md.
let package = Package(
    name: "CourierFuzz",
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzMediaType", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzImageHeader", dependencies: ["FuzzDriver"]),
        .executableTarget(name: "FuzzCharsetDecoding", dependencies: ["FuzzDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
