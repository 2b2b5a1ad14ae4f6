import Testing
@testable import EfferentWriter

@Suite struct SourceRecordTests {
    @Test func recordsCompareByContent() {
        let a = SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierStepCount", source: "iPhone", start: 0, end: 60, value: 12, unit: "count")
        var b = a
        #expect(a == b)
        b.value = 13
        #expect(a != b)
    }
}
