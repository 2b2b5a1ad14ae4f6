import EfferentCore
import EfferentSQLite
import Foundation
import Testing
@testable import EfferentWriter

/// Issue 33 item 7, decision A.11: a source name holding NUL (`&#0;` in an export, `\u0000` in a
/// phone's JSON) keeps its reading; the NUL becomes U+FFFD in the stored record, so no C or SQL
/// copy of the name is cut short there and the identity's fields stay apart.
@Suite struct SourceNameTests {
    @Test func aNULInASourceNameIsReplacedAndTheReadingKept() async throws {
        let harness = try await WriterHarness()
        let xml = ExportFixtures.healthXML("""
        <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Anna&#0;s Watch" unit="count/min" startDate="2024-06-01 10:00:00 +0200" endDate="2024-06-01 10:00:00 +0200" value="61"/>
        """)
        var records = try ExportFixtures.parse(xml).records
        #expect(records.first?.source == "Anna\u{0}s Watch", "the reader keeps what the export wrote")
        // As a phone's `"sourceName":"Anna\u0000s iPhone","device":"i\u0000Phone"` reads.
        records.append(SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierHeartRate", source: "Anna\u{0}s iPhone",
                                    deviceModel: "i\u{0}Phone", start: instant("2024-06-01 11:00:00"), end: instant("2024-06-01 11:00:00"),
                                    value: 62, unit: "count/min"))
        let session = try harness.importRecords(records)
        #expect(session.added == 2 && session.skipped == 0)
        let stored = try harness.store.serialized {
            try harness.store.db.statement("SELECT source, device FROM record ORDER BY start").rows { ($0.text(0), $0.optionalText(1)) }
        }
        #expect(stored.map(\.0) == ["Anna\u{FFFD}s Watch", "Anna\u{FFFD}s iPhone"])
        #expect(stored.map(\.1) == [nil, "i\u{FFFD}Phone"])
        #expect(stored.allSatisfy { !$0.0.utf8.contains(0) && $0.0.utf8.count > 10 }, "nothing cut at the NUL")
        // The same input again adds nothing: the identity is the cleaned name's, every time.
        #expect(try harness.importRecords(records).added == 0)
    }
}
