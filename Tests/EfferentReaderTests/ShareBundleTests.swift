import EfferentCore
@testable import EfferentReader
import Foundation
import Testing

/// A share's FHIR files hold the reader's own answers, value for value (decision A.15).
@Suite struct ShareBundleTests {
    static func events() throws -> [ArchiveEvent] {
        var events = [ArchiveEvent]()
        for (offset, day) in ["2026-03-01", "2026-03-02", "2026-03-04"].enumerated() {
            events.append(try Fixture.total("steps", day, Double(8000 + offset * 1111)))
            events.append(try Fixture.reading("heartRate", day, "Europe/Berlin", day + "T07:00:00Z", 61 + Double(offset)))
            events.append(try Fixture.reading("heartRate", day, "Europe/Berlin", day + "T19:30:00Z", 90.5))
            events.append(try Fixture.reading("oxygenSaturation", day, "Europe/Berlin", day + "T03:00:00Z", 0.97, unit: "%"))
            events.append(try Fixture.reading("oxygenSaturation", day, "Europe/Berlin", day + "T04:00:00Z", 0.955, unit: "%"))
            events.append(try Fixture.reading("bloodPressureSystolic", day, "Europe/Berlin", day + "T08:00:00Z", 121, unit: "mmHg"))
            events.append(try Fixture.reading("bloodPressureDiastolic", day, "Europe/Berlin", day + "T08:00:00Z", 79, unit: "mmHg"))
        }
        events.append(try Fixture.sleep("2026-03-01", "Europe/Berlin", "2026-03-01T22:00:00Z", "2026-03-02T05:30:00Z", "asleepCore"))
        events.append(try Fixture.workout("2026-03-02", "Europe/Berlin", "2026-03-02T17:00:00Z", minutes: 42, activity: "37"))
        return events
    }

    static func bundle(_ request: ShareRequest) throws -> (ShareContent, JSONValue, EventList) {
        let source = EventList(try events())
        let content = try ShareContent(request, source: source, today: Fixture.day("2026-03-10"))
        let bundle = ShareBundle(content: content, name: "Anna Example", title: "Test", generated: 1_773_000_000, zone: "Europe/Berlin")
        return (content, try JSONParser.parse(try bundle.document(source: source, today: Fixture.day("2026-03-10"))), source)
    }

    @Test func everyObservationIsTheDailyAnswersNumber() throws {
        let (content, bundle, source) = try Self.bundle(ShareRequest(since: Fixture.day("2026-03-01"), until: Fixture.day("2026-03-05")))
        #expect(content.daily.contains("heartRate") && content.bloodPressure && content.sleep && content.workouts)
        #expect(bundle["type"]?.stringValue == "document")
        let entries = try #require(bundle["entry"]?.arrayValue)
        #expect(entries[0]["resource"]?["resourceType"]?.stringValue == "Composition")
        let period = entries[0]["resource"]?["event"]?.arrayValue?.first?["period"]
        #expect(period?["start"]?.stringValue == "2026-03-01" && period?["end"]?.stringValue == "2026-03-05", "the days covered, empty ones too")
        #expect(entries[1]["resource"]?["resourceType"]?.stringValue == "Patient")
        let answer = try AnswerRequest(kind: .daily, since: content.range.since, until: content.range.until,
                                       metrics: ["heartRate", "steps", "oxygenSaturation"]).answer(from: source, today: Fixture.day("2026-03-10"))
        let daily = try #require(answer as? DailyAnswer)
        let table = daily.json
        let columns = (table["columns"]?.arrayValue ?? []).compactMap(\.stringValue)
        var checked = 0
        for entry in entries.dropFirst(2) {
            let resource = try #require(entry["resource"])
            guard let metric = resource["code"]?["coding"]?.arrayValue?.first(where: { $0["system"]?.stringValue == FHIRTerms.metricSystem })?["code"]?.stringValue,
                  ["heartRate", "steps", "oxygenSaturation"].contains(metric), let day = resource["effectiveDateTime"]?.stringValue else { continue }
            let row = try #require(table["rows"]?.arrayValue?.first { $0.arrayValue?.first?.stringValue == day }?.arrayValue)
            let column = columns.contains(metric) ? metric : metric + ".mean"
            let index = try #require(columns.firstIndex(of: column))
            let expected = try #require(row[index].numberValue)
            let value = try #require(resource["valueQuantity"]?["value"]?.numberValue)
            // A fraction is shared as the percentage UCUM's % names: the same digits, the point moved.
            #expect(metric == "oxygenSaturation" ? DecimalShift.text(expected, places: 2) == DecimalShift.text(value, places: 0) : value == expected,
                    "\(metric) \(day)")
            checked += 1
        }
        #expect(checked == 9)
    }

    @Test func bloodPressureIsThePanelWithItsTwoParts() throws {
        let (_, bundle, _) = try Self.bundle(ShareRequest(since: Fixture.day("2026-03-01"), until: Fixture.day("2026-03-05"), metrics: ["bloodPressure"]))
        let panels = (bundle["entry"]?.arrayValue ?? []).compactMap { $0["resource"] }
            .filter { $0["code"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "85354-9" }
        #expect(panels.count == 3)
        let components = panels[0]["component"]?.arrayValue ?? []
        let systolic = components.first { $0["code"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "8480-6" }
        let diastolic = components.first { $0["code"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "8462-4" }
        #expect(systolic?["valueQuantity"]?["value"]?.numberValue == 121 && systolic?["valueQuantity"]?["code"]?.stringValue == "mm[Hg]")
        #expect(diastolic?["valueQuantity"]?["value"]?.numberValue == 79)
    }

    @Test func sleepAndWorkoutsAreTheirAnswersFigures() throws {
        let (_, bundle, _) = try Self.bundle(ShareRequest(since: Fixture.day("2026-03-01"), until: Fixture.day("2026-03-05"), metrics: ["sleep", "workouts"]))
        let resources = (bundle["entry"]?.arrayValue ?? []).compactMap { $0["resource"] }
        let night = try #require(resources.first { $0["code"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "93832-4" })
        #expect(night["valueQuantity"]?["value"]?.numberValue == 7.5 && night["effectivePeriod"]?["start"]?.stringValue == "2026-03-01T23:00:00+01:00")
        let workout = try #require(resources.first { $0["code"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "73985-4" })
        #expect(workout["valueCodeableConcept"]?["coding"]?.arrayValue?.first?["code"]?.stringValue == "running")
        #expect(workout["component"]?.arrayValue?.first?["valueQuantity"]?["value"]?.numberValue == 42)
    }

    @Test func aNameNobodyKnowsIsRefusedAndNothingToShareSaysSo() throws {
        #expect(throws: AnswerError.self) { try Self.bundle(ShareRequest(metrics: ["heartRat"])) }
        #expect(throws: AnswerError.self) { try Self.bundle(ShareRequest(metrics: ["workout.activity"])) }
        let source = EventList([])
        #expect(throws: ShareError.nothingToShare) { try ShareContent(ShareRequest(), source: source, today: Fixture.day("2026-03-10")) }
    }

    /// Raw readings leave as files of bounded size, every reading once.
    @Test func rawReadingsAreCutIntoFiles() throws {
        let source = EventList(try Self.events())
        let content = try ShareContent(ShareRequest(since: Fixture.day("2026-03-01"), until: Fixture.day("2026-03-05"), metrics: ["heartRate"], raw: true),
                                       source: source, today: Fixture.day("2026-03-10"))
        let files = RawReadingFiles(bundle: ShareBundle(content: content, name: nil, title: "T", generated: 0, zone: nil), source: source, maxBytes: 700)
        var bundles = [JSONValue]()
        while let file = try files.nextFile() { bundles.append(try JSONParser.parse(file)) }
        #expect(bundles.count >= 2 && files.readings == 6)
        let values = bundles.flatMap { ($0["entry"]?.arrayValue ?? []).compactMap { $0["resource"]?["valueQuantity"]?["value"]?.numberValue } }
        #expect(values.sorted() == [61, 62, 63, 90.5, 90.5, 90.5])
        #expect(bundles.allSatisfy { $0["type"]?.stringValue == "collection" && $0["entry"]?.arrayValue?.first?["resource"]?["resourceType"]?.stringValue == "Patient" })
    }

    @Test func decimalShiftMovesThePointInTheText() {
        #expect(DecimalShift.text(0.97, places: 2) == "97")
        #expect(DecimalShift.text(0.955, places: 2) == "95.5")
        #expect(DecimalShift.text(0.9625, places: 2) == "96.25")
        #expect(DecimalShift.text(1, places: 2) == "100")
        #expect(DecimalShift.text(0, places: 2) == "0")
        #expect(DecimalShift.text(-0.5, places: 2) == "-50")
        #expect(DecimalShift.shift("1e-05", by: 2) == "0.001")
        #expect(DecimalShift.shift("1.25e-07", by: 2) == "0.0000125")
        #expect(DecimalShift.shift("3.5e+20", by: 2) == "35000000000000000000000")
        #expect(DecimalShift.text(72.5, places: 0) == "72.5")
    }
}
