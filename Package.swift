// swift-tools-version:6.0
// The layers of Efferent, bottom to top (see documents/design.md):
//   C libraries (one system target each) → EfferentBindings (every unsafe pointer)
//   → EfferentCore (pure protocol: keys, HPKE, day body, frame, signed strings, edits; no I/O)
//   → service / writer / reader libraries → thin executables.
import PackageDescription

let package = Package(
    name: "Efferent",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "EfferentCore", targets: ["EfferentCore"]),
        .executable(name: "efferent-server", targets: ["efferent-server"]),
        .executable(name: "efferent", targets: ["efferent"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // The one layer that touches C: every unsafe pointer lives here.
        .target(name: "EfferentBindings", dependencies: ["CSodium", "CZlib", "CSQLite", "CMicroHTTPD", "CLibPQ"]),

        // The client side's HTTP on libcurl: timeouts, deadlines and answer ceilings enforced as bytes move.
        .target(name: "EfferentCurl", dependencies: ["CCurl"]),

        // The protocol's pure core: bytes in, values out, no I/O.
        .target(name: "EfferentCore", dependencies: ["EfferentBindings"]),

        // The archive service: router → handlers → store.
        .target(name: "EfferentServer", dependencies: ["EfferentCore", "EfferentBindings"]),

        // The service client both sides use: signed requests, retries, the service clock.
        .target(name: "EfferentClient", dependencies: ["EfferentCore", "EfferentBindings", "EfferentCurl"]),

        // The writer (the phone's role): export import → source store → ledger → days → uploads.
        .target(name: "EfferentWriter", dependencies: ["EfferentCore", "EfferentBindings", "EfferentClient"]),

        // The reader: service client → mirror → answers (CLI and MCP).
        .target(name: "EfferentReader", dependencies: ["EfferentCore", "EfferentBindings", "EfferentClient"]),

        // A small argument parser shared by both commands (the toolchain ships none).
        .target(name: "EfferentCommandLine"),

        // The executables: thin — parse arguments, call a library, print.
        .executableTarget(name: "efferent-server", dependencies: ["EfferentServer", "EfferentCommandLine", "EfferentCore", "EfferentBindings"]),
        .executableTarget(name: "efferent", dependencies: ["EfferentWriter", "EfferentReader", "EfferentClient", "EfferentCommandLine", "EfferentCore",
                                                           "EfferentBindings"]),

        // Benchmarks (scripts/bench): the Swift figures, and the same-run floors written in C.
        .target(name: "CBenchFloor", path: "Sources/Tools/CBenchFloor",
                linkerSettings: [.linkedLibrary("sodium"), .linkedLibrary("z"), .linkedLibrary("sqlite3"), .linkedLibrary("microhttpd")]),
        .executableTarget(name: "efferent-bench", dependencies: ["EfferentCore", "EfferentBindings", "EfferentServer", "EfferentWriter",
                                                                 "EfferentClient", "EfferentTestSupport", "CBenchFloor"],
                          path: "Sources/Tools/efferent-bench"),

        // Realistic Apple Health exports with known true answers, for the writer's tests and bench.
        .target(name: "EfferentExportGenerator", dependencies: ["EfferentBindings", "EfferentTestSupport"], path: "Sources/Tools/EfferentExportGenerator"),
        .executableTarget(name: "efferent-export-gen", dependencies: ["EfferentExportGenerator"],
                          path: "Sources/Tools/efferent-export-gen"),

        // The Swift side of scripts/interop: single protocol operations on files.
        .executableTarget(name: "efferent-interop", dependencies: ["EfferentCore", "EfferentBindings", "EfferentReader"],
                          path: "Sources/Tools/efferent-interop"),

        // libFuzzer targets (scripts/fuzz).
        .target(name: "EfferentFuzzing", dependencies: ["EfferentCore", "EfferentWriter"], path: "Sources/Tools/EfferentFuzzing"),
        .executableTarget(name: "fuzz-json", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-json"),
        .executableTarget(name: "fuzz-frame", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-frame"),
        .executableTarget(name: "fuzz-day", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-day"),
        .executableTarget(name: "fuzz-handoff", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-handoff"),
        .executableTarget(name: "fuzz-edit", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-edit"),
        .executableTarget(name: "fuzz-export", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-export"),

        // What the test suites share: a bare HTTP client for exact bytes on the wire.
        .target(name: "EfferentTestSupport", dependencies: ["EfferentBindings"], path: "Sources/EfferentTestSupport"),
        .testTarget(name: "EfferentServerTests", dependencies: ["EfferentServer", "EfferentCore", "EfferentBindings", "EfferentTestSupport"]),
        .testTarget(name: "EfferentReaderTests", dependencies: ["EfferentReader", "EfferentClient", "EfferentCore", "EfferentServer",
                                                          "EfferentBindings", "EfferentTestSupport"]),
        .testTarget(name: "EfferentClientTests", dependencies: ["EfferentClient", "EfferentCore", "EfferentTestSupport"]),
        .testTarget(name: "EfferentWriterTests", dependencies: ["EfferentWriter", "EfferentClient", "EfferentServer", "EfferentCore",
                                                          "EfferentBindings", "EfferentTestSupport", "EfferentExportGenerator", "EfferentReader"]),
        .testTarget(name: "EfferentCLITests", dependencies: ["EfferentCore", "EfferentExportGenerator", "EfferentTestSupport"]),
        .testTarget(name: "EfferentExportGeneratorTests", dependencies: ["EfferentExportGenerator", "EfferentBindings"]),
        .testTarget(name: "EfferentBindingsTests", dependencies: ["EfferentBindings", "EfferentTestSupport"]),
        .testTarget(name: "EfferentCoreTests", dependencies: ["EfferentCore", "EfferentBindings", "EfferentTestSupport"],
                    resources: [.copy("Fixtures")]),
    ]
)
