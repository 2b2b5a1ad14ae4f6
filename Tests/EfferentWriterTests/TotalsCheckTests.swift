import EfferentCore
@testable import EfferentWriter
import Foundation
import Testing

@Suite struct TotalsCheckTests {
    @Test func ourTotalsAreComparedWithApples() async throws {
        let harness = try await WriterHarness()
        let session = try harness.store.beginImport(source: "export.zip", format: "xml", full: true)
        func energy(_ start: String, _ end: String, _ kcal: Double, _ source: String) -> SourceRecord {
            SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierActiveEnergyBurned", source: source,
                         start: instant(start), end: instant(end), value: kcal, unit: "kcal")
        }
        // Watch and iPhone both wrote energy for one walk; Apple's summary counts it once.
        try session.record(energy("2024-06-01 09:00:00", "2024-06-01 09:30:00", 120, "Apple Watch"))
        try session.record(energy("2024-06-01 09:00:00", "2024-06-01 09:30:00", 110, "iPhone"))
        try session.record(energy("2024-06-02 09:00:00", "2024-06-02 09:30:00", 80, "Apple Watch"))
        try session.activitySummary(ActivitySummaryRecord(day: "2024-06-01", activeEnergyKilocalories: 120, exerciseMinutes: nil, standHours: nil))
        try session.activitySummary(ActivitySummaryRecord(day: "2024-06-02", activeEnergyKilocalories: 95, exerciseMinutes: nil, standHours: nil))
        try session.finish()
        let check = try TotalsCheck.run(builder: DayBuilder(store: harness.store, hourlyFrom: nil))
        #expect(check.activeEnergy.compared == 2 && check.activeEnergy.agreeing == 1)
        #expect(check.activeEnergy.worst == 15 && check.activeEnergy.worstDay == CalendarDay("2024-06-02"))
        #expect(check.exerciseTime.compared == 0)
    }
}
