import EfferentTestSupport
import Testing

extension PostgresTestDatabase {
    /// Why a PostgreSQL case cannot run, printed beside the case in a plain `swift test`.
    static let missingClusterReason: Comment =
        "skipped: needs the throwaway PostgreSQL cluster that scripts/test starts (EFFERENT_TEST_POSTGRES_URL is unset)"

    /// A database of this test case's own; where no cluster runs (a plain `swift test`), the case
    /// is recorded as a warning with the reason and cancelled, so it shows as skipped rather than
    /// vanishing from the run. `scripts/test` starts the cluster and fails on any such warning.
    static func forThisCase() throws -> PostgresTestDatabase {
        guard clusterURL != nil else {
            Issue.record(missingClusterReason, severity: .warning)
            try Test.cancel(missingClusterReason)
        }
        return try PostgresTestDatabase()
    }
}
