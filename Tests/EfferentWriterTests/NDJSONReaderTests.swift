@testable import EfferentReceiver
import Foundation
import Testing
@testable import EfferentWriter

/// Efferent's layout-1 event lines (efferent-protocol.md §3.3) and PulsHealth batches.
@Suite struct NDJSONReaderTests {
    private static let events = """
    {"id":"agg:steps:2024-03-01T00:00:00Z:d","v":1,"bucket":"day","end":"2024-03-02T00:00:00Z","metric":"steps","start":"2024-03-01T00:00:00Z","unit":"count","value":8123}
    {"id":"agg:steps:2024-03-01T09:00:00Z:h","v":1,"bucket":"hour","end":"2024-03-01T10:00:00Z","metric":"steps","start":"2024-03-01T09:00:00Z","unit":"count","value":512}

    {"id":"hk:heartRate:0A1B","v":1,"end":"2024-03-01T09:00:05Z","metric":"heartRate","source":"Simon’s Apple Watch","start":"2024-03-01T09:00:05Z","unit":"count/min","value":61}
    {"id":"hk:sleep:0A1C","v":1,"end":"2024-03-01T06:00:00Z","metric":"sleep","source":"Watch","stage":"deep","start":"2024-03-01T05:30:00Z"}\r
    {"id":"hk:workout:0A1D","v":1,"activity":"37","duration":1800.5,"end":"2024-03-01T18:30:00Z","metric":"workout","source":"Watch","start":"2024-03-01T18:00:00.250Z"}
    """

    @Test func efferentEventLines() throws {
        let url = try ExportFixtures.file("day.ndjson", Self.events)
        guard case .efferentEvents = try ExportLocator.locate(url) else { Issue.record("not located as events"); return }
        let sink = CollectingSink()
        #expect(try ExportImporter.read(url, into: sink).records == 5)
        #expect(sink.records[0] == SourceRecord(kind: .quantity, type: "efferent:steps/day", source: "archive" + SourcePriority.dayTotalSuffix, start: 1_709_251_200, end: 1_709_337_600,
                                                value: 8123, unit: "count"))
        #expect(sink.records[1].type == "efferent:steps/hour")
        #expect(sink.records[2] == SourceRecord(kind: .quantity, type: "efferent:heartRate", source: "Simon\u{2019}s Apple Watch",
                                                start: 1_709_283_605, end: 1_709_283_605, value: 61, unit: "count/min"))
        #expect(sink.records[3] == SourceRecord(kind: .category, type: "efferent:sleep", source: "Watch", start: 1_709_271_000, end: 1_709_272_800,
                                                category: "deep"))
        #expect(sink.records[4] == SourceRecord(kind: .workout, type: "efferent:workout", source: "Watch", start: 1_709_316_000.25, end: 1_709_317_800,
                                                activity: "37", duration: 1800.5))
        #expect(sink.records.allSatisfy { $0.type.hasPrefix(EfferentEventReader.typePrefix) })
    }

    @Test func malformedEventLineNamesItsNumber() throws {
        let lines = Self.events.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var broken = lines
        broken[4] = "{\"id\":\"hk:sleep:0A1C\",\"v\":1,\"metric\":\"sleep\",\"start\":\"yesterday\"}"
        let url = try ExportFixtures.file("day.ndjson", broken.joined(separator: "\n"))
        #expect(throws: ExportError.malformedLine(file: "day.ndjson", line: 5, problem: "\"start\" is not an ISO instant ending in Z")) {
            try ExportImporter.read(url, into: CollectingSink())
        }
        broken[4] = "{\"id\":\"x\",\"v\":1,"
        let truncated = try ExportFixtures.file("day.ndjson", broken.joined(separator: "\n"))
        #expect(throws: ExportError.malformedLine(file: "day.ndjson", line: 5, problem: "not a JSON object")) {
            try ExportImporter.read(truncated, into: CollectingSink())
        }
        #expect(ExportError.malformedLine(file: "day.ndjson", line: 5, problem: "not a JSON object").description
            == "Line 5 of day.ndjson is not a record Efferent reads (not a JSON object): fix or remove that line.")
    }

    @Test func pulsHealthLinesInAnyChunking() throws {
        // pulshealth-ndjson/*.ndjson — PulsHealth/pulshealth docs/protocol/fixtures (Apache-2.0), concatenated.
        let first = try [UInt8](Data(contentsOf: ExportFixtures.sample("pulshealth-ndjson/01-quantity-category.ndjson")))
        let second = try [UInt8](Data(contentsOf: ExportFixtures.sample("pulshealth-ndjson/02-workout-route-series.ndjson")))
        let both = first + (first.last == 0x0A ? [] : [0x0A]) + second
        for size in [1, 7, 100, both.count] {
            let sink = CollectingSink()
            let reader = PulsHealthReader(sink: sink, label: "batch.ndjson")
            var offset = 0
            while offset < both.count {
                try reader.feed(Array(both[offset..<min(offset + size, both.count)]))
                offset += size
            }
            try reader.finish()
            // The workout's series points are heart-rate samples; its statistics, events and route are parts.
            #expect(sink.samples.map(\.kind) == [.quantity, .quantity, .category, .workout, .quantity, .quantity], "chunk size \(size)")
            #expect(sink.records.count == 25, "chunk size \(size)")
        }
    }

    @Test func pulsHealthSleepCodesAndErrors() throws {
        let header = "{\"schemaVersion\":1,\"type\":\"HKCategoryTypeIdentifierSleepAnalysis\",\"sampleCount\":6}"
        let samples = (0...5).map {
            "{\"uuid\":\"u\($0)\",\"type\":\"HKCategoryTypeIdentifierSleepAnalysis\",\"kind\":\"category\",\"start\":1718000000000,\"end\":1718003600000,\"category\":\($0),\"sourceName\":\"Watch\",\"metadata\":{\"HKTimeZone\":\"Europe/Paris\"}}"
        }
        let url = try ExportFixtures.file("sleep.ndjson", ([header] + samples).joined(separator: "\n"))
        let sink = CollectingSink()
        _ = try ExportImporter.read(url, into: sink, lineFormats: [PulsHealthReader.format])
        #expect(sink.records.compactMap(\.category) == PulsHealthReader.sleepValues)
        #expect(sink.records.allSatisfy { $0.timeZone == "Europe/Paris" })

        let badVersion = try ExportFixtures.file("b.ndjson", "{\"schemaVersion\":2}\n")
        #expect(throws: ExportError.self) { try ExportImporter.read(badVersion, into: CollectingSink(), lineFormats: [PulsHealthReader.format]) }
        let badCode = try ExportFixtures.file("b.ndjson", header + "\n" + samples[0].replacingOccurrences(of: "\"category\":0", with: "\"category\":9"))
        #expect(throws: ExportError.malformedLine(file: "b.ndjson", line: 2, problem: "a sleep category outside 0…5")) {
            try ExportImporter.read(badCode, into: CollectingSink(), lineFormats: [PulsHealthReader.format])
        }
        let noValue = try ExportFixtures.file("b.ndjson", header + "\n\n{\"uuid\":\"u\",\"type\":\"HKQuantityTypeIdentifierHeartRate\",\"kind\":\"quantity\",\"start\":1}")
        #expect(throws: ExportError.malformedLine(file: "b.ndjson", line: 3, problem: "a quantity sample without a numeric \"value\"")) {
            try ExportImporter.read(noValue, into: CollectingSink(), lineFormats: [PulsHealthReader.format])
        }
    }
}
