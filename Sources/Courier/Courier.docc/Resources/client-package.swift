// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "CourierClient",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Your Courier checkout (or Courier's repository URL).
        .package(path: "../courier"),
    ],
    targets: [
        .executableTarget(
            name: "CourierClient",
            dependencies: [.product(name: "Courier", package: "courier")]
        ),
    ]
)
