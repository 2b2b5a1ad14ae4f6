// swift-tools-version:6.2
// The layers of Efferent, bottom to top (see documents/design.md):
//   C libraries (one system target each) → bindings, one per library (every C call and unsafe
//   pointer) → EfferentCore (pure protocol: keys, HPKE, day body, frame, signed strings, edits;
//   no I/O) → service / writer / reader libraries → thin executables.
// Every Swift target above the bindings builds with strict memory safety, its diagnostics errors
// (the loop after `package`): `unsafe` there is written only at the audited sites design.md names.
import Foundation
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
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CGFShare", pkgConfig: "libgfshare", providers: [.apt(["libgfshare-dev"])]),
        // The C library's calls Swift's Glibc module leaves out (malloc_trim).
        .systemLibrary(name: "CSystem"),

        // The bindings: every C call and unsafe pointer lives in one of these; above them, only the
        // audited sites documents/design.md names (strict memory safety, below, enforces it).
        .target(name: "EfferentCrypto", dependencies: ["CSodium"], path: "Sources/Bindings/EfferentCrypto"),
        .target(name: "EfferentCompression", dependencies: ["CZlib"], path: "Sources/Bindings/EfferentCompression"),
        .target(name: "EfferentSQLite", dependencies: ["CSQLite"], path: "Sources/Bindings/EfferentSQLite"),
        .target(name: "EfferentPostgres", dependencies: ["CLibPQ"], path: "Sources/Bindings/EfferentPostgres"),
        .target(name: "EfferentMicroHTTPD", dependencies: ["CMicroHTTPD", "EfferentSystem"], path: "Sources/Bindings/EfferentMicroHTTPD"),
        .target(name: "EfferentSystem", dependencies: ["CSystem"], path: "Sources/Bindings/EfferentSystem"),
        // A string's UTF-8 read in place (copies and compares for the core's writer); no C library.
        .target(name: "EfferentBytes", path: "Sources/Bindings/EfferentBytes"),
        // The client side's HTTP on libcurl: timeouts, deadlines and answer ceilings enforced as bytes move.
        .target(name: "EfferentCurl", dependencies: ["CCurl", "EfferentSystem"], path: "Sources/Bindings/EfferentCurl"),
        // QR codes (the pairing link a phone scans, a recovery kit's sheet).
        .target(name: "EfferentQRCode", dependencies: ["CQRencode"], path: "Sources/Bindings/EfferentQRCode"),
        // Shamir's secret sharing over GF(256) (a recovery kit split among people), on libgfshare.
        .target(name: "EfferentSecretSharing", dependencies: ["CGFShare", "EfferentCrypto"], path: "Sources/Bindings/EfferentSecretSharing"),

        // The protocol's pure core: bytes in, values out, no I/O; it links libsodium and zlib only.
        .target(name: "EfferentCore", dependencies: ["EfferentCrypto", "EfferentCompression", "EfferentBytes"], swiftSettings: optimizedInDebug),

        // The recovery kit: its secret and words (BIP-39), its sealed record (Argon2id and
        // XChaCha20-Poly1305), its sheets, split ones among them, and its printable page. Pure: no I/O.
        .target(name: "EfferentRecovery", dependencies: ["EfferentCore", "EfferentCrypto", "EfferentSecretSharing", "EfferentQRCode"],
                exclude: ["LICENSE-MIT-python-mnemonic"]),

        // The HTTP layer every server stands on: route table, request and response values, body
        // ceilings and gzip, errors that render themselves, the access log, the daemon.
        .target(name: "EfferentHTTP", dependencies: ["EfferentCore", "EfferentCompression", "EfferentMicroHTTPD", "EfferentSystem"]),

        // The archive service: routes → handlers → store (SQLite or PostgreSQL).
        // Its shared-link viewer's files are embedded as Swift (scripts/embed-viewer).
        .target(name: "EfferentServer", dependencies: ["EfferentCore", "EfferentCrypto", "EfferentHTTP", "EfferentSQLite",
                                                       "EfferentPostgres", "EfferentSystem"],
                exclude: ["Assets"]),

        // The service client both sides use: signed requests, retries, the service clock, profiles.
        .target(name: "EfferentClient", dependencies: ["EfferentCore", "EfferentSystem", "EfferentCurl"]),

        // The writer (the phone's role): export import → source store → ledger → days → uploads.
        .target(name: "EfferentWriter", dependencies: ["EfferentCore", "EfferentCrypto", "EfferentCompression", "EfferentSQLite",
                                                       "EfferentSystem", "EfferentClient", "EfferentRecovery"], swiftSettings: optimizedInDebug),

        // The phone's receiver: Puls Sync Protocol v1, all of it — the lines read and checked, their
        // mapping to records (also for `efferent import` of saved batches), its own tables (paired
        // phones, samples by UUID, buckets, batches taken) beside the writer's in one file, each
        // batch committed in the one transaction the writer lends it — on the shared HTTP layer.
        .target(name: "EfferentReceiver", dependencies: ["EfferentWriter", "EfferentHTTP", "EfferentCore", "EfferentCrypto", "EfferentQRCode",
                                                         "EfferentSQLite", "EfferentSystem", "EfferentClient"],
                swiftSettings: optimizedInDebug),

        // The reader: service client → mirror → answers (CLI and MCP), and the mirror as SQL.
        .target(name: "EfferentReader", dependencies: ["EfferentCore", "EfferentClient", "EfferentSQLite", "EfferentSystem", "EfferentCrypto",
                                                       "EfferentCompression"],
                swiftSettings: optimizedInDebug),

        // The reader's local dashboard: pages, a JSON API and its OpenAPI document over the mirror,
        // on the shared HTTP layer; its files are embedded as Swift (scripts/embed-dashboard).
        .target(name: "EfferentDashboard", dependencies: ["EfferentReader", "EfferentHTTP", "EfferentClient", "EfferentCore", "EfferentCrypto",
                                                          "EfferentSystem"],
                exclude: ["Assets"]),

        // A small argument parser shared by both commands (the toolchain ships none).
        .target(name: "EfferentCommandLine", dependencies: ["EfferentCore"]),

        // The executables: thin — parse arguments, call a library, print.
        .executableTarget(name: "efferent-server", dependencies: ["EfferentServer", "EfferentCommandLine", "EfferentCore", "EfferentHTTP",
                                                                "EfferentSystem"]),
        .executableTarget(name: "efferent", dependencies: ["EfferentWriter", "EfferentReader", "EfferentReceiver", "EfferentDashboard", "EfferentClient",
                                                         "EfferentCommandLine", "EfferentCore", "EfferentHTTP", "EfferentSystem", "EfferentQRCode", "EfferentRecovery"]),

        // Benchmarks (scripts/bench): the Swift figures, and the same-run floors written in C.
        .target(name: "CBenchFloor", path: "Sources/Tools/CBenchFloor",
                linkerSettings: [.linkedLibrary("sodium"), .linkedLibrary("z"), .linkedLibrary("sqlite3"), .linkedLibrary("microhttpd")]),
        // Its binding: the floors and the process clocks behind arrays and strings.
        .target(name: "EfferentBenchFloor", dependencies: ["CBenchFloor"], path: "Sources/Bindings/EfferentBenchFloor"),
        .executableTarget(name: "efferent-bench", dependencies: ["EfferentCore", "EfferentCompression", "EfferentSQLite", "EfferentPostgres",
                                                                 "EfferentHTTP", "EfferentServer", "EfferentWriter", "EfferentSystem",
                                                                 "EfferentClient", "EfferentReader", "EfferentTestSupport", "EfferentBenchFloor", "EfferentCrypto"],
                          path: "Sources/Tools/efferent-bench"),

        // Realistic Apple Health exports with known true answers, for the writer's tests and bench.
        .target(name: "EfferentExportGenerator", dependencies: ["EfferentCompression", "EfferentTestSupport"], path: "Sources/Tools/EfferentExportGenerator",
                swiftSettings: optimizedInDebug),
        .executableTarget(name: "efferent-export-gen", dependencies: ["EfferentExportGenerator"],
                          path: "Sources/Tools/efferent-export-gen"),

        // The Swift side of scripts/interop: single protocol operations on files.
        .executableTarget(name: "efferent-interop", dependencies: ["EfferentCore", "EfferentCompression", "EfferentReader"],
                          path: "Sources/Tools/efferent-interop"),

        // libFuzzer targets (scripts/fuzz).
        .target(name: "EfferentFuzzing", dependencies: ["EfferentCore", "EfferentClient", "EfferentWriter", "EfferentReader", "EfferentReceiver", "EfferentSystem"],
                path: "Sources/Tools/EfferentFuzzing"),
        .executableTarget(name: "fuzz-json", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-json"),
        .executableTarget(name: "fuzz-frame", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-frame"),
        .executableTarget(name: "fuzz-day", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-day"),
        .executableTarget(name: "fuzz-handoff", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-handoff"),
        .executableTarget(name: "fuzz-edit", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-edit"),
        .executableTarget(name: "fuzz-export", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-export"),
        .executableTarget(name: "fuzz-mcp", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-mcp"),
        .executableTarget(name: "fuzz-index", dependencies: ["EfferentFuzzing"], path: "Sources/Tools/Fuzz/fuzz-index"),

        // What the test suites share: a bare HTTP client for exact bytes on the wire.
        .target(name: "EfferentTestSupport", dependencies: ["EfferentPostgres", "EfferentCompression", "EfferentSystem"], path: "Sources/EfferentTestSupport"),
        // The archive service as every suite starts it (a fresh store behind a daemon on port 0).
        .target(name: "EfferentServiceTestSupport", dependencies: ["EfferentServer", "EfferentClient", "EfferentCore", "EfferentHTTP",
                                                                 "EfferentSystem", "EfferentTestSupport"],
                path: "Sources/EfferentServiceTestSupport"),
        .testTarget(name: "EfferentHTTPTests", dependencies: ["EfferentHTTP", "EfferentCore", "EfferentCurl", "EfferentTestSupport"]),
        .testTarget(name: "EfferentServerTests", dependencies: ["EfferentServer", "EfferentCore", "EfferentCompression", "EfferentSQLite", "EfferentSystem",
                                                          "EfferentPostgres", "EfferentHTTP", "EfferentTestSupport", "EfferentServiceTestSupport"]),
        .testTarget(name: "EfferentReaderTests", dependencies: ["EfferentReader", "EfferentClient", "EfferentCore", "EfferentServer",
                                                          "EfferentCompression", "EfferentHTTP", "EfferentSQLite", "EfferentSystem",
                                                          "EfferentTestSupport", "EfferentServiceTestSupport"]),
        .testTarget(name: "EfferentDashboardTests", dependencies: ["EfferentDashboard", "EfferentReader", "EfferentClient", "EfferentCore",
                                                             "EfferentServer", "EfferentHTTP", "EfferentCompression", "EfferentTestSupport", "EfferentServiceTestSupport"]),
        .testTarget(name: "EfferentClientTests", dependencies: ["EfferentClient", "EfferentCore", "EfferentTestSupport"]),
        .testTarget(name: "EfferentWriterTests", dependencies: ["EfferentWriter", "EfferentReceiver", "EfferentClient", "EfferentServer", "EfferentCore",
                                                          "EfferentCrypto", "EfferentCompression", "EfferentSQLite", "EfferentHTTP",
                                                          "EfferentTestSupport", "EfferentServiceTestSupport", "EfferentExportGenerator", "EfferentReader", "EfferentSystem"]),
        .testTarget(name: "EfferentReceiverTests", dependencies: ["EfferentReceiver", "EfferentWriter", "EfferentClient", "EfferentServer",
                                                            "EfferentCore", "EfferentHTTP", "EfferentSQLite", "EfferentQRCode",
                                                            "EfferentSystem", "EfferentTestSupport", "EfferentServiceTestSupport"]),
        .testTarget(name: "EfferentCLITests", dependencies: ["EfferentCore", "EfferentExportGenerator", "EfferentTestSupport", "EfferentSystem", "EfferentClient"]),
        .testTarget(name: "EfferentExportGeneratorTests", dependencies: ["EfferentExportGenerator", "EfferentCompression"]),
        .testTarget(name: "EfferentBindingsTests", dependencies: ["EfferentCrypto", "EfferentCompression", "EfferentSQLite", "EfferentPostgres", "EfferentMicroHTTPD",
                                                           "EfferentSystem", "EfferentTestSupport", "EfferentSecretSharing"]),
        .testTarget(name: "EfferentRecoveryTests", dependencies: ["EfferentRecovery", "EfferentCore", "EfferentCrypto", "EfferentSecretSharing",
                                                            "EfferentTestSupport"]),
        .testTarget(name: "EfferentCoreTests", dependencies: ["EfferentCore", "EfferentCrypto", "EfferentCompression", "EfferentTestSupport"],
                    resources: [.copy("Fixtures")]),
    ]
)

// Strict memory safety (SE-0458) on every Swift target above the bindings — libraries, commands,
// tools, fuzz targets, test support and tests — with its diagnostics as errors: an unsafe construct
// there must be a binding's safe API or an `unsafe` expression at one of the audited sites
// documents/design.md names. The bindings (Sources/Bindings) are where C and pointers live.
for target in package.targets where target.type != .system && target.name != "CBenchFloor"
    && !(target.path ?? "").hasPrefix("Sources/Bindings/") {
    target.swiftSettings = (target.swiftSettings ?? []) + [.strictMemorySafety(), .treatWarning("StrictMemorySafety", as: .error)]
}

/// The scripts (scripts/lib.sh sets EFFERENT_OPTIMIZE_DEBUG=1) build the codec, the writer, the
/// reader and the export generator optimized in debug builds too: the suite's end-to-end checks
/// import and open years of data, which -Onone makes 3–4× slower (a two-year import: 75 s of CPU
/// against 20 s). Off by default, so a plain `swift build` keeps full debug information and the
/// package stays usable as a dependency (SwiftPM refuses unsafe flags there).
var optimizedInDebug: [SwiftSetting] {
    guard ProcessInfo.processInfo.environment["EFFERENT_OPTIMIZE_DEBUG"] == "1" else { return [] }
    return [.unsafeFlags(["-O"], .when(configuration: .debug))]
}
