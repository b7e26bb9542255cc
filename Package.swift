// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pushgate",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushgate", targets: ["pushgate"]),
        .executable(name: "pushgate-mock", targets: ["pushgate-mock"]),
        .executable(name: "pushgate-loadgen", targets: ["pushgate-loadgen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Only the mock APNs/FCM servers the tests and benchmarks run use SwiftNIO.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // GET /metrics: the metrics API the layers count with, and its Prometheus exposition.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // C libraries from Debian, each in its own box with a shim for macros and variadics.
        .systemLibrary(name: "CFastCGI", pkgConfig: "fcgi", providers: [.apt(["libfcgi-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        .target(name: "PushCore", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // The schema migrations of the top-level sql/ (one folder per engine), compiled into
        // the binary so that it runs from any directory; the plugin lists them from the folders.
        .target(name: "SchemaMigrations", plugins: ["EmbeddedMigrations"]),
        .plugin(name: "EmbeddedMigrations", capability: .buildTool()),
        .target(
            name: "PushStore",
            dependencies: [
                "PushCore", "CSQLite", "CLibPQ", "SchemaMigrations",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(name: "PushCrypto", dependencies: ["PushCore", "COpenSSL"]),
        .target(name: "PushAPI", dependencies: ["PushCore", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "PushDelivery",
            dependencies: [
                "PushCore", "PushCrypto", "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "FastCGI",
            dependencies: [
                "PushCore", "CFastCGI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "App",
            dependencies: [
                "PushCore", "PushStore", "PushCrypto", "PushAPI", "FastCGI", "PushDelivery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            plugins: ["BuildInfo"]
        ),
        .executableTarget(name: "pushgate", dependencies: ["App"]),
        // The version (CHANGELOG.md's first heading) and the commit, written before each build.
        .plugin(name: "BuildInfo", capability: .buildTool()),

        // Mock APNs and FCM: HTTP/2 over TLS, for the tests and scripts/bench (never shipped).
        .target(
            name: "MockUpstream",
            dependencies: [
                "PushCore", "PushCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .executableTarget(
            name: "pushgate-mock",
            dependencies: ["MockUpstream", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // scripts/bench's delivery row: the engine driven at the mock APNs.
        .executableTarget(
            name: "pushgate-loadgen",
            dependencies: [
                "PushCore", "PushCrypto", "PushDelivery", "MockUpstream",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Every fake and recorder the tests share: in-memory stores, the transport fake, the log
        // recorder, the real nginx and a throwaway PostgreSQL.
        .target(
            name: "PushTesting",
            dependencies: ["PushCore", "PushDelivery", .product(name: "Logging", package: "swift-log")],
            path: "Tests/PushTesting"),
        .testTarget(name: "PushCoreTests", dependencies: ["PushCore"]),
        .testTarget(name: "PushStoreTests", dependencies: ["PushStore", "PushCore", "PushTesting"]),
        .testTarget(name: "PushCryptoTests", dependencies: ["PushCrypto", "PushCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PushAPITests", dependencies: ["PushAPI", "PushCore", "PushTesting"]),
        .testTarget(name: "IntegrationTests", dependencies: ["FastCGI", "PushCore", "PushTesting", "MockUpstream"]),
        // PushStore: the tests of several nodes sharing one database (outbox, provider tokens).
        .testTarget(
            name: "PushDeliveryTests",
            dependencies: [
                "PushDelivery", "PushCore", "PushCrypto", "PushTesting", "MockUpstream", "PushStore",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]),
        .testTarget(name: "MockUpstreamTests", dependencies: ["MockUpstream", "PushCore", "PushCrypto"]),
        .testTarget(name: "FastCGITests", dependencies: ["FastCGI", "PushCore", "PushTesting"]),
        .testTarget(name: "AppTests", dependencies: ["App", "PushStore", "PushCore", "PushDelivery", "PushTesting"]),
        .testTarget(name: "DoctorTests", dependencies: ["App", "FastCGI", "PushStore", "PushCore", "PushCrypto", "PushTesting"]),
    ]
)
