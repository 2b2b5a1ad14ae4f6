import Foundation
import Testing
@testable import EfferentWriter

/// The reading quirks of apple-health-export.md §1.8, each in a small input built here.
@Suite struct ExportQuirkTests {
    private static func record(_ attributes: String, _ children: String = "") -> String {
        let base = "type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Phone\" unit=\"count\" startDate=\"2024-03-01 10:00:00 +0100\" endDate=\"2024-03-01 10:05:00 +0100\" value=\"12\""
        return children.isEmpty ? "<Record \(base) \(attributes)/>" : "<Record \(base) \(attributes)>\(children)</Record>"
    }

    /// iOS 16's DTD has a missing `>` after one ATTLIST and an extra one after another: every strict parser stops there.
    @Test func malformedDTDIsSkipped() throws {
        let dtd = """
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 12 -->
        <!ATTLIST VisionPrescription
          type CDATA #REQUIRED
        <!ATTLIST Attachment
          identifier CDATA #IMPLIED
        >>
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        ]>
        """
        let sink = try ExportFixtures.parse(ExportFixtures.healthXML(Self.record(""), dtd: dtd))
        #expect(sink.records.count == 1)
        #expect(sink.records[0].start == 1_709_283_600)
    }

    @Test func controlCharactersInValuesAreKept() throws {
        let xml = ExportFixtures.healthXML(Self.record("").replacingOccurrences(of: "sourceName=\"Phone\"", with: "sourceName=\"My\u{0B}Phone\u{01}\""))
        let sink = try ExportFixtures.parse(xml)
        #expect(sink.records.first?.source == "My\u{0B}Phone\u{01}")
    }

    @Test func attributesSpanningLinesWithTabsAndCRLF() throws {
        let xml = ExportFixtures.healthXML("<Record\r\n\ttype=\"HKQuantityTypeIdentifierHeartRate\"\r\n   sourceName = 'Watch'\n unit=\"count/min\"\n startDate=\"2024-03-01 10:00:00 +0100\"\n\t\tendDate=\"2024-03-01 10:00:00 +0100\"\n value=\"61\"\n/>")
        let sink = try ExportFixtures.parse(xml)
        #expect(sink.records == [SourceRecord(kind: .quantity, type: "HKQuantityTypeIdentifierHeartRate", source: "Watch",
                                              start: 1_709_283_600, end: 1_709_283_600, value: 61, unit: "count/min")])
    }

    /// The `model:` field of a device description wherever it falls: after other words starting
    /// in "m", last with nothing after it, cut short, or missing; and quotes of either kind.
    @Test func theDeviceModelIsFoundWhereverItFalls() throws {
        let devices: [(String, String?)] = [
            ("&lt;&lt;HKDevice: 0x1&gt;, name:My mom&amp;dad mmodel, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1&gt;", "Watch"),
            ("model:iPhone", "iPhone"),
            ("name:x, model:", ""),
            ("name:x, mode", nil),
            ("m", nil),
            ("", nil),
            ("no field here at all, not one", nil),
        ]
        for (device, model) in devices {
            for quote in ["\"", "'"] {
                let xml = ExportFixtures.healthXML("""
                <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" device=\(quote)\(device)\(quote) unit="count/min" startDate="2024-03-01 10:00:00 +0100" endDate="2024-03-01 10:00:00 +0100" value="61"/>
                """)
                let record = try #require(try ExportFixtures.parse(xml).records.first)
                #expect(record.deviceModel == model, "\(device) in \(quote)")
            }
        }
    }

    @Test func entitiesAndCharacterReferences() throws {
        let xml = ExportFixtures.healthXML("""
        <Record type="HKQuantityTypeIdentifierVO2Max" sourceName="Simon&#8217;s &amp; Ann&#x2019;s &lt;Watch&gt; &quot;1&quot; &apos;2&apos; &bogus; &#xZZ;" unit="mL/min&#183;kg" device="&lt;&lt;HKDevice: 0x282e3a260&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone10,4, software:12.3&gt;" startDate="2024-03-01 10:00:00 +0100" endDate="2024-03-01 10:00:00 +0100" value="45.2"/>
        """)
        let record = try #require(try ExportFixtures.parse(xml).records.first)
        #expect(record.source == "Simon\u{2019}s & Ann\u{2019}s <Watch> \"1\" '2' &bogus; &#xZZ;")
        #expect(record.unit == "mL/min\u{00B7}kg")
        #expect(record.deviceModel == "iPhone")
    }

    /// Issue 33 item 7: a Record's `type` is decoded like any text attribute, so a type written with
    /// a character reference is the type it names and `&lt;` is `<`, not the literal entity.
    @Test func aRecordTypeIsEntityDecoded() throws {
        let xml = ExportFixtures.healthXML("""
        <Record type="HKQuantityTypeIdentifier&#x48;eartRate" sourceName="Watch" unit="count/min" startDate="2024-03-01 10:00:00 +0100" endDate="2024-03-01 10:00:00 +0100" value="61"/>
        <Record type="HKQuantityTypeIdentifier&lt;Odd&gt;" sourceName="Watch" unit="count" startDate="2024-03-01 10:00:00 +0100" endDate="2024-03-01 10:00:00 +0100" value="1"/>
        """)
        let records = try ExportFixtures.parse(xml).records
        #expect(records.map(\.type) == ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifier<Odd>"])
    }

    /// The DTD: "Any Records that appear as children of a correlation also appear as top-level records".
    @Test func correlationChildrenAreNotDoubled() throws {
        let systolic = "<Record type=\"HKQuantityTypeIdentifierBloodPressureSystolic\" sourceName=\"Beurer HealthCoach\" unit=\"mmHg\" startDate=\"2023-07-23 09:24:00 -0400\" endDate=\"2023-07-23 09:24:00 -0400\" value=\"113\"/>"
        let diastolic = "<Record type=\"HKQuantityTypeIdentifierBloodPressureDiastolic\" sourceName=\"Beurer HealthCoach\" unit=\"mmHg\" startDate=\"2023-07-23 09:24:00 -0400\" endDate=\"2023-07-23 09:24:00 -0400\" value=\"66\"><MetadataEntry key=\"HKTimeZone\" value=\"America/New_York\"/></Record>"
        let xml = ExportFixtures.healthXML("""
        \(systolic)
        \(diastolic)
        <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Beurer HealthCoach" creationDate="2024-04-10 19:14:14 -0400" startDate="2023-07-23 09:24:00 -0400" endDate="2023-07-23 09:24:00 -0400">
          <MetadataEntry key="HKExternalUUID" value="IO009******MEA000021"/>
          \(diastolic)
          \(systolic)
        </Correlation>
        """)
        let sink = try ExportFixtures.parse(xml)
        #expect(sink.records.map(\.value) == [113, 66])
        #expect(sink.records[1].timeZone == "America/New_York")
    }

    /// Legacy `…Asleep` (iOS 8–15) and renamed `…AsleepUnspecified` (iOS 16+) are passed through as written; categories without a value too.
    @Test func sleepStringsPassThrough() throws {
        let values = ["HKCategoryValueSleepAnalysisAsleep", "HKCategoryValueSleepAnalysisAsleepUnspecified", "HKCategoryValueSleepAnalysisInBed",
                      "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"]
        let body = values.map {
            "<Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Watch\" startDate=\"2019-06-15 23:00:00 -0400\" endDate=\"2019-06-16 09:00:00 -0400\" value=\"\($0)\"/>"
        }.joined(separator: "\n") + "\n<Record type=\"HKCategoryTypeIdentifierMindfulSession\" sourceName=\"Breathe\" startDate=\"2019-06-15 23:00:00 -0400\" endDate=\"2019-06-15 23:01:00 -0400\"/>"
            + "\n<Record type=\"HKDataTypeSleepDurationGoal\" sourceName=\"Health\" unit=\"hr\" startDate=\"2019-06-15 23:00:00 -0400\" endDate=\"2019-06-15 23:00:00 -0400\" value=\"8\"/>"
        let sink = try ExportFixtures.parse(ExportFixtures.healthXML(body))
        #expect(sink.records.prefix(6).map(\.category) == values)
        #expect(sink.records.prefix(6).allSatisfy { $0.kind == .category && $0.value == nil })
        #expect(sink.records[6].kind == .category)
        #expect(sink.records[6].category == nil)
        #expect(sink.records[7].kind == .quantity)
        #expect(sink.records[7].value == 8)
        #expect(sink.records[7].unit == "hr")
    }

    /// Real iOS 26 workouts list the same metadata keys twice: the last one wins.
    @Test func duplicateMetadataKeysLastWins() throws {
        let children = "<MetadataEntry key=\"HKTimeZone\" value=\"Europe/Paris\"/><MetadataEntry key=\"HKTimeZone\" value=\"Europe/Berlin\"/>"
        let sink = try ExportFixtures.parse(ExportFixtures.healthXML(Self.record("", children)))
        #expect(sink.records.first?.timeZone == "Europe/Berlin")
    }

    /// iOS 16+ shape: totals only in WorkoutStatistics, WorkoutActivity nesting events and statistics the DTD does not declare.
    @Test func workoutStatisticsOnlyWorkouts() throws {
        let xml = ExportFixtures.healthXML("""
        <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="60.88754943410556" durationUnit="min"
          sourceName="Apple Watch" sourceVersion="11.6.1" device="&lt;&lt;HKDevice: 0xc937f6fa0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch7,2, software:11.6.1, creation date:2025-08-14 23:49:07 +0000&gt;"
          creationDate="2025-09-16 17:15:51 +0100" startDate="2025-09-16 16:14:50 +0100" endDate="2025-09-16 17:15:43 +0100">
          <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
          <MetadataEntry key="HKAverageMETs" value="9.1945 kcal/hr&#183;kg"/>
          <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2025-09-16 16:14:50 +0100" duration="6.42" durationUnit="min"/>
          <WorkoutEvent type="HKWorkoutEventTypeLap" date="2025-09-16 16:20:00 +0100"><MetadataEntry key="HKSWOLFScore" value="40"/></WorkoutEvent>
          <WorkoutActivity uuid="0C822588-0000" startDate="2025-09-16 16:14:50 +0100" endDate="2025-09-16 17:15:43 +0100" duration="60.00003784894943" durationUnit="min">
            <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2025-09-16 16:14:50 +0100" duration="6.42" durationUnit="min"/>
            <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2025-09-16 16:14:50 +0100" endDate="2025-09-16 17:15:43 +0100" average="130.153" minimum="87" maximum="139" unit="count/min"/>
            <MetadataEntry key="HKTimeZone" value="America/Nowhere"/>
          </WorkoutActivity>
          <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2025-09-16 16:14:50 +0100" endDate="2025-09-16 17:15:43 +0100" sum="8.95512" unit="km"/>
          <WorkoutRoute sourceName="Apple Watch" sourceVersion="11.6.1" creationDate="2025-09-16 17:15:51 +0100" startDate="2025-09-16 16:14:50 +0100" endDate="2025-09-16 17:15:43 +0100">
            <FileReference path="/workout-routes/route_2025-09-16_6.15pm.gpx"/>
          </WorkoutRoute>
        </Workout>
        <Workout workoutActivityType="HKWorkoutActivityTypeSwimming" sourceName="Apple Watch" startDate="2025-09-17 07:00:00 +0100" endDate="2025-09-17 08:00:00 +0100">
          <WorkoutActivity uuid="A" startDate="2025-09-17 07:00:00 +0100" endDate="2025-09-17 07:30:00 +0100" duration="1200" durationUnit="s"/>
          <WorkoutActivity uuid="A" startDate="2025-09-17 07:30:00 +0100" endDate="2025-09-17 08:00:00 +0100" duration="0.25" durationUnit="hr"/>
        </Workout>
        <Workout workoutActivityType="HKWorkoutActivityTypeYoga" sourceName="Apple Watch" startDate="2025-09-18 07:00:00 +0100" endDate="2025-09-18 07:20:00 +0100"/>
        <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" startDate="2025-09-18 07:00:00 +0100" endDate="2025-09-18 07:00:00 +0100" value="70"/>
        """)
        let sink = CollectingSink()
        let reader = HealthExportReader(sink: sink, label: "export.xml")
        try reader.feed(Array(xml.utf8))
        try reader.finish()
        let records = sink.samples
        #expect(records.count == 4)
        let run = records[0]
        #expect(run.kind == .workout)
        #expect(run.activity == "HKWorkoutActivityTypeRunning")
        #expect(run.duration == 60.88754943410556 * 60)
        #expect(run.timeZone == "Europe/Paris")
        #expect(run.deviceModel == "Watch")
        #expect(run.start == 1_758_035_690)
        // Without a duration attribute: the activities' durations, converted from s and hr.
        #expect(records[1].duration == 2100)
        // With neither: end − start.
        #expect(records[2].duration == 1200)
        #expect(records[3].value == 70)
        // The statistics are the run's parts, in their own units (the mapping converts them).
        let distance = try #require(sink.records(ofType: "workout.distanceWalkingRunning.sum").first)
        #expect(distance.value == 8.95512 && distance.unit == "km" && distance.source == run.source && distance.start == run.start)
        #expect(sink.records(ofType: "workout.activity").map(\.duration) == [60.00003784894943 * 60, 1200, 900])
        #expect(sink.records(ofType: "workout.activity").map(\.activity) == ["HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeSwimming",
                                                                               "HKWorkoutActivityTypeSwimming"])
        #expect(reader.referencedRouteFiles == ["workout-routes/route_2025-09-16_6.15pm.gpx"])
        #expect(sink.routes.isEmpty)
    }

    /// The en_FR export stores energy in kJ; some sources write `Cal` (a kilocalorie).
    @Test func activitySummaryEnergyUnits() throws {
        let xml = ExportFixtures.healthXML("""
        <ActivitySummary dateComponents="2023-05-01" activeEnergyBurned="2092" activeEnergyBurnedGoal="2000" activeEnergyBurnedUnit="kJ" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="31" appleExerciseTimeGoal="30" appleStandHours="10" appleStandHoursGoal="12"/>
        <ActivitySummary dateComponents="2023-05-02" activeEnergyBurned="400.5" activeEnergyBurnedUnit="Cal" appleExerciseTime="12"/>
        <ActivitySummary dateComponents="2023-05-03"/>
        <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" sourceName="Watch" unit="kJ" startDate="2023-05-01 10:00:00 +0200" endDate="2023-05-01 10:01:00 +0200" value="4.184"/>
        """)
        let sink = try ExportFixtures.parse(xml)
        #expect(sink.summaries == [
            ActivitySummaryRecord(day: "2023-05-01", activeEnergyKilocalories: 500, exerciseMinutes: 31, standHours: 10,
                                  rings: ["activeEnergyBurned": 500, "activeEnergyBurnedGoal": 2000 / 4.184, "appleMoveTime": 0,
                                          "appleMoveTimeGoal": 0, "appleExerciseTime": 31, "appleExerciseTimeGoal": 30,
                                          "appleStandHours": 10, "appleStandHoursGoal": 12]),
            ActivitySummaryRecord(day: "2023-05-02", activeEnergyKilocalories: 400.5, exerciseMinutes: 12, standHours: nil,
                                  rings: ["activeEnergyBurned": 400.5, "appleExerciseTime": 12]),
            ActivitySummaryRecord(day: "2023-05-03", activeEnergyKilocalories: nil, exerciseMinutes: nil, standHours: nil),
        ])
        // Records keep their own unit: conversion belongs to the mapping.
        #expect(sink.records.first?.unit == "kJ")
        #expect(sink.records.first?.value == 4.184)
    }

    @Test func unknownElementsCommentsAndHRVListsAreSkipped() throws {
        let xml = ExportFixtures.healthXML("""
        <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-20"/>
        <!-- a comment with <Record type="x"/> inside -->
        <?some-pi data?>
        \(Self.record("", "<HeartRateVariabilityMetadataList><InstantaneousBeatsPerMinute bpm=\"62\" time=\"00:20:37,80\"/></HeartRateVariabilityMetadataList>"))
        <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="x" sourceName="Clinic" resourceFilePath="/clinical-records/x.json"/>
        <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" startDate="2023-01-01 10:00:00 +0100" endDate="2023-01-01 10:00:00 +0100">
          <SensitivityPoint frequencyValue="125" frequencyUnit="Hz" leftEarValue="10" leftEarUnit="dBHL"/>
          <Record type="HKQuantityTypeIdentifierStepCount" sourceName="not a top-level record" startDate="bad" endDate="bad" value="1"/>
        </Audiogram>
        <VisionPrescription type="HKVisionPrescriptionTypeGlasses" dateIssued="2023-01-01 10:00:00 +0100"><RightEye sphere="-1"/><Attachment identifier="y"/></VisionPrescription>
        <![CDATA[ <Record> ]]>
        """)
        let sink = try ExportFixtures.parse(xml)
        #expect(sink.samples.count == 1)
        #expect(sink.samples[0].value == 12)
        // The beat of the HRV list and the audiogram's point are parts; the record inside the
        // audiogram is not a top-level record; Health Records, prescriptions and `Me` are named.
        let beat = try #require(sink.records(ofType: "heartbeatSeries").first)
        #expect(beat.start == instant("2024-03-01 00:20:37", zone: "Europe/Paris") && beat.value == 62)
        #expect(sink.records(ofType: "audiogram.frequency").map(\.value) == [125])
        #expect(sink.records(ofType: "audiogram.leftEar").map(\.value) == [10])
        #expect(sink.leftOut == [.characteristics, .clinicalRecord, .visionPrescription])
    }

    @Test func cutShortXML() throws {
        let xml = ExportFixtures.healthXML(Self.record(""))
        let cut = String(xml.prefix(xml.count - 20))
        #expect(throws: ExportError.cutShort(file: "export.xml")) { try ExportFixtures.parse(cut) }
        // Cut inside the DTD: the root never starts.
        #expect(throws: ExportError.notHealthExport(file: "export.xml")) { try ExportFixtures.parse(String(xml.prefix(100))) }
        // A file cut on disk, read through the importer.
        let url = try ExportFixtures.file("export.xml", cut)
        #expect(throws: ExportError.cutShort(file: "export.xml")) { try ExportImporter.read(url, into: CollectingSink()) }
        #expect(ExportError.cutShort(file: "export.xml").description == "export.xml is cut short (it ends before </HealthData>): copy it again, or export it again from the Health app.")
    }

    /// iOS 8 wrote compact dates and metadata as attributes with spaces in their names (invalid XML).
    @Test func iOS8CompactDatesFailClearly() throws {
        let xml = "<HealthData locale=\"en_US\"><Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"count\" startDate=\"20150616071916-0700\" endDate=\"20150616072916-0700\" value=\"20\" Some Key=\"1\"/></HealthData>"
        #expect(throws: ExportError.iOS8Format(file: "export.xml")) { try ExportFixtures.parse(xml) }
        #expect(ExportError.iOS8Format(file: "export.xml").description.contains("iOS 8 format, which Efferent does not read"))
    }

    /// A record whose date names no real time (a 13th month) is that record's problem alone: it is
    /// left out and named, and the rest of the export reads; the sentence names no value.
    @Test func unreadableDateNamesNoValue() throws {
        let xml = ExportFixtures.healthXML(Self.record("").replacingOccurrences(of: "2024-03-01 10:00:00 +0100", with: "2024-13-01 10:00:00 +0100")
                                           + "\n" + Self.record(""))
        let sink = try ExportFixtures.parse(xml)
        #expect(sink.records.count == 1)
        #expect(sink.leftOut.map(\.description) == ["HKQuantityTypeIdentifierStepCount (a date that names no real time)"])
        #expect(!sink.leftOut.map(\.description).joined().contains("2024"))
    }

    /// The sample read with every chunk size from 1 byte up: tags cut anywhere by a chunk boundary.
    @Test func chunkBoundariesAnywhere() throws {
        // apple-health-parser/export.xml — alxdrcirilo/apple-health-parser tests/data (MIT).
        let text = try String(contentsOf: ExportFixtures.sample("apple-health-parser/export.xml"), encoding: .utf8)
        let whole = try ExportFixtures.parse(text)
        #expect(whole.records.count == 8)
        // Behind a DTD, as real exports are, so the root is also found across boundaries.
        let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
        let withDTD = text.replacingOccurrences(of: declaration, with: declaration + "\n" + ExportFixtures.defaultDTD)
        #expect(withDTD.count > text.count + 100)
        for size in [1, 2, 3, 5, 11, 64, 333] {
            let pieces = try ExportFixtures.parse(withDTD, chunkSize: size)
            #expect(pieces.records == whole.records, "chunk size \(size)")
        }
    }

    @Test func floatsParseExactly() {
        for text in ["0", "74", "-1", "0.12", "22.5312", "5.19412346680959", "1e3", "-2.5E-3", "0.1", "123456789012345678901234", "0.00000000000000000000000001"] {
            #expect(DecimalText.parse(ArraySlice(text.utf8)) == Double(text), "\(text)")
        }
        for bad in ["", "-", ".", "1.2.3", "1e", "abc", "1,5", "nan"] {
            #expect(DecimalText.parse(ArraySlice(bad.utf8)) == nil, "\(bad)")
        }
    }
}
