import EfferentClient
import EfferentReceiver
import Foundation
import Testing
@testable import EfferentWriter

/// What an input says about its zone, and what the writer decides from it (decision A.4).
@Suite struct ZoneEvidenceTests {
    /// 2024-06-01 08:10:05 +0200 and summer readings in Berlin, two of them naming their zone.
    static let berlinXML = ExportFixtures.healthXML("""
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2024-05-31 23:30:00 +0200" endDate="2024-05-31 23:30:00 +0200" value="61">
          <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2024-05-31 23:40:00 +0200" endDate="2024-05-31 23:40:00 +0200" value="62">
          <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-05-31 10:00:00 +0200" endDate="2024-05-31 10:05:00 +0200" value="300"/>
        """)

    @Test func anExportNamesItsZoneAndItsOffsets() throws {
        let reader = HealthExportReader(sink: CollectingSink(), label: "export.xml")
        try reader.feed(Array(Self.berlinXML.utf8))
        try reader.finish()
        let evidence = reader.zoneEvidence
        #expect(evidence.named == ["Europe/Berlin": 2])
        #expect(evidence.offsets == [7200: 3])
        #expect(evidence.exportOffset == 7200)
        #expect(evidence.decision(machineZone: "Etc/UTC") == ZoneDecision(zone: "Europe/Berlin", reason: "2 of its records name the zone Europe/Berlin (HKTimeZone)"))
        // Paris keeps Berlin's offsets all year: nothing to warn about. UTC does not.
        let paris = try #require(ZoneCalendar(identifier: "Europe/Paris"))
        let utc = try #require(ZoneCalendar(identifier: "Etc/UTC"))
        #expect(evidence.disagreement(with: paris) == nil)
        let warning = try #require(evidence.disagreement(with: utc))
        #expect(warning.contains("Europe/Berlin") && warning.contains("Etc/UTC") && warning.contains("`efferent zone set Europe/Berlin`"))
    }

    @Test func withoutZoneNamesTheOffsetDecides() throws {
        var evidence = ZoneEvidence()
        evidence.exportInstant = 1_717_222_205 // 2024-06-01 06:10:05 UTC
        evidence.exportOffset = 7200
        #expect(evidence.decision(machineZone: "Europe/Amsterdam")?.zone == "Europe/Amsterdam")
        let fixed = try #require(evidence.decision(machineZone: "Etc/UTC"))
        #expect(fixed.zone == "Etc/GMT-2" && fixed.reason.contains("+02:00") && fixed.reason.contains("efferent zone set"))
        let newYork = try #require(ZoneCalendar(identifier: "America/New_York"))
        let warning = try #require(evidence.disagreement(with: newYork))
        #expect(warning.contains("+02:00") && warning.contains("-04:00"))
        #expect(ZoneEvidence().decision(machineZone: "Etc/UTC") == nil)
        #expect(ZoneEvidence.offsetText(-19_800) == "-05:30")
    }

    @Test func aPulsHealthBatchNamesThePhonesZone() throws {
        let batch = """
            {"timeZoneID":"America/Los_Angeles","schemaVersion":1,"batchID":"b","deviceID":"d","type":"HKQuantityTypeIdentifierHeartRate","sampleCount":1}
            {"uuid":"u1","type":"HKQuantityTypeIdentifierHeartRate","kind":"quantity","start":1718000010000,"end":1718000010000,"startContext":{"timeZoneID":"America/Los_Angeles","utcOffsetSeconds":-25200},"value":64,"unit":"count/min","sourceName":"Watch"}

            """
        let tally = try ExportImporter.read(try ExportFixtures.file("batch.ndjson", batch), into: CollectingSink(), lineFormats: [PulsHealthReader.format])
        #expect(tally.zone.named == ["America/Los_Angeles": 2])
        #expect(tally.zone.decision(machineZone: "Etc/UTC")?.zone == "America/Los_Angeles")
    }
}
