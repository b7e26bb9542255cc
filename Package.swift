// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pushgate",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushgate", targets: ["pushgate"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // C libraries from Debian, each in its own box with a shim for macros and variadics.
        .systemLibrary(name: "CFastCGI", pkgConfig: "fcgi", providers: [.apt(["libfcgi-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        .target(name: "PushCore"),
        .target(name: "PushStore", dependencies: ["PushCore", "CSQLite"]),
        .target(name: "PushCrypto", dependencies: ["PushCore", "COpenSSL"]),
        .target(name: "PushAPI", dependencies: ["PushCore"]),
        .target(
            name: "FastCGI",
            dependencies: ["PushCore", "CFastCGI", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "App",
            dependencies: [
                "PushCore", "PushStore", "PushCrypto", "PushAPI", "FastCGI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "pushgate", dependencies: ["App"]),

        .target(name: "PushTesting", dependencies: ["PushCore"], path: "Tests/PushTesting"),
        .testTarget(name: "PushCoreTests", dependencies: ["PushCore"]),
        .testTarget(name: "PushStoreTests", dependencies: ["PushStore", "PushCore"]),
        .testTarget(name: "PushCryptoTests", dependencies: ["PushCrypto", "PushCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PushAPITests", dependencies: ["PushAPI", "PushCore", "PushTesting"]),
        .testTarget(name: "IntegrationTests", dependencies: ["PushCore", "PushTesting"]),
        .testTarget(name: "FastCGITests", dependencies: ["FastCGI", "PushCore", "PushTesting"]),
    ]
)
