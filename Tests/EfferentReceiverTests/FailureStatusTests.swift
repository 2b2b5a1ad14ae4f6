import EfferentHTTP
@testable import EfferentReceiver
import EfferentSQLite
import EfferentSystem
import Foundation
import Testing

/// A failure that is no refusal of the batch is a 503 only when a retry can get past it (the
/// store busy, the disk full); anything else is a 500 the log names (issue 31): a bug or a corrupt
/// store must not become a "busy" the phone retries forever while nobody sees it.
@Suite struct FailureStatusTests {
    @Test func onlyWhatARetryCanPassIsBusy() throws {
        let busy = SQLiteError(code: 5, message: "database is locked", context: "storing a batch")            // SQLITE_BUSY
        let locked = SQLiteError(code: 6, message: "database table is locked", context: "storing a batch")    // SQLITE_LOCKED
        let full = SQLiteError(code: 13, message: "database or disk is full", context: "storing a batch")      // SQLITE_FULL
        let noSpace = FileDurabilityError(code: ENOSPC, context: "flushing the log")
        for error in [busy, locked, full] as [any Error] + [noSpace] {
            let answer = try #require(ReceiverRefusal.recover(error), "\(error)")
            #expect(answer.status == 503 && answer.response.headers.contains { $0.0 == "Retry-After" }, "\(error)")
        }
        let corrupt = SQLiteError(code: 11, message: "database disk image is malformed", context: "storing a batch")  // SQLITE_CORRUPT
        let constraint = SQLiteError(code: 2067, message: "UNIQUE constraint failed", context: "storing a batch")
        let io = FileDurabilityError(code: EIO, context: "flushing the log")
        struct Bug: Error {}
        for error in [corrupt, constraint, io, Bug()] as [any Error] {
            #expect(ReceiverRefusal.recover(error) == nil, "\(error) is no busy store: a 500")
        }
    }
}
