import EfferentPostgres
import Foundation

/// A schema of its own in the throwaway PostgreSQL cluster that `scripts/test` starts (named by
/// `EFFERENT_TEST_POSTGRES_URL`), so tests running side by side never see each other's rows.
/// Dropped with everything in it when the value goes.
public final class PostgresTestDatabase: Sendable {
    /// The cluster's URL, or `nil` where none was started (plain `swift test`).
    public static var clusterURL: String? {
        ProcessInfo.processInfo.environment["EFFERENT_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public let schema: String
    /// The cluster's URL with this schema as the search path: what a store or `--postgres` takes.
    public let url: String
    private let cluster: String

    public init() throws {
        guard let cluster = Self.clusterURL else {
            throw PostgresError(sqlState: nil, message: "EFFERENT_TEST_POSTGRES_URL is not set; run scripts/test", context: "finding the test cluster")
        }
        self.cluster = cluster
        schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(url: cluster).execute("CREATE SCHEMA \(schema)")
        // The application name lets a test find this schema's connections in pg_stat_activity.
        url = cluster + (cluster.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)&application_name=\(schema)"
    }

    deinit {
        try? PostgresConnection(url: cluster).execute("DROP SCHEMA \(schema) CASCADE")
    }
}
