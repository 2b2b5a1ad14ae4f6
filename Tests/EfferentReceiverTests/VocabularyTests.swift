import EfferentCore
@testable import EfferentReceiver
import EfferentSQLite
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// The phone's words (Puls Sync v1 §4.1, issue 45): every activity name the protocol lists, and
/// its rule for the rest, is one of HealthKit's activity types; every other enumeration it names
/// in words (ECG classifications, State of Mind kinds, valences, labels and associations,
/// medication statuses, workout events) maps to HealthKit's raw value; every type of its catalogue
/// is one of HealthKit's; and a word not yet known is kept as it came, never taken for "other".
/// The words are read from the protocol's own files (Tests/Fixtures/puls-sync-v1, Apache-2.0).
@Suite struct VocabularyTests {
    static let protocolText = (try? String(contentsOf: PulsCorpus.folder.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// The names §4.1's table lists for a workout's `activityType`, in backticks.
    static func listedActivities() throws -> [String] {
        let row = try #require(protocolText.split(separator: "\n").first { $0.hasPrefix("| `activityType` | string | yes |") })
        return row.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }.filter { $0 != "activityType" }
    }

    @Test func everyActivityTheProtocolListsIsOneOfHealthKits() throws {
        let listed = try Self.listedActivities()
        #expect(listed.count == 27, "\(listed)")
        let healthKit = Set(WorkoutActivity.numbers.values)
        for name in listed {
            let number = try #require(PulsVocabulary.activity(name).flatMap { Int($0) }, "\(name)")
            #expect(healthKit.contains(number) && number != 3000, "\(name) → \(number)")
        }
        // The exceptions §4.1 and issue 45 name, and the multi-word names that used to be "other".
        let expected = ["strength_training": "TraditionalStrengthTraining", "functional_strength_training": "FunctionalStrengthTraining",
                        "hiit": "HighIntensityIntervalTraining", "stair_climbing": "StairClimbing", "mixed_cardio": "MixedCardio",
                        "core_training": "CoreTraining", "cross_training": "CrossTraining", "snow_sports": "SnowSports",
                        "paddle_sports": "PaddleSports", "skating": "SkatingSports", "surfing": "SurfingSports", "running": "Running",
                        "dance": "Dance"]
        for (word, suffix) in expected {
            #expect(PulsVocabulary.activity(word) == WorkoutActivity.numbers[suffix].map(String.init), "\(word)")
        }
    }

    /// "And others following the same pattern": every HealthKit activity by the snake_case of its
    /// suffix, and by the app's word for a case newer than itself (`activity_<raw value>`).
    @Test func theRuleCoversEveryHealthKitActivity() throws {
        #expect(WorkoutActivity.numbers.count == 84)
        for (suffix, number) in WorkoutActivity.numbers {
            #expect(PulsVocabulary.activity(PulsVocabulary.snakeCase(suffix)) == String(number), "\(suffix)")
            #expect(PulsVocabulary.activity("activity_\(number)") == String(number))
        }
        #expect(PulsVocabulary.snakeCase("AmericanFootball") == "american_football")
        #expect(PulsVocabulary.snakeCase("MixedMetabolicCardioTraining") == "mixed_metabolic_cardio_training")
        // The app's own words where they are not the rule's (its `pulsName`).
        let words = ["equestrian": 17, "recovery": 33, "wheelchair_walk": 70, "wheelchair_run": 71, "tai_chi": 72, "hand_cycling": 74,
                     "disc_sports": 75, "fitness_gaming": 76, "pickleball": 79, "cooldown": 80, "triathlon": 82, "transition": 83,
                     "diving": 84, "other": 3000]
        for (word, number) in words { #expect(PulsVocabulary.activity(word) == String(number), "\(word)") }
        // A word no version knows yet is not "other": nil, kept as it came.
        for word in ["zumba", "activity_", "activity_x", "Strength Training", ""] { #expect(PulsVocabulary.activity(word) == nil, "\(word)") }
    }

    /// The words `sample.schema.json` lists for each enumerated field, split from its description.
    static func schemaWords(_ path: [String]) throws -> [String] {
        var node = try PulsCorpus.schema("sample")["$defs"]
        for key in path { node = node?[key] }
        let description = try #require(node?["description"]?.stringValue, "\(path)")
        return description.split(separator: ",").map { piece in
            var word = piece.trimmingCharacters(in: .whitespaces)
            if word.hasPrefix("or ") { word.removeFirst(3) }
            if word.hasSuffix(".") { word.removeLast() }
            return word
        }.filter { !$0.contains(" ") && !$0.isEmpty }
    }

    @Test func everyOtherWordTheSchemaListsIsHealthKits() throws {
        let classifications = try Self.schemaWords(["ecg", "properties", "classification"])
        #expect(classifications.count == 8, "\(classifications)")
        let expected = ["notSet": 0, "sinusRhythm": 1, "atrialFibrillation": 2, "inconclusiveLowHeartRate": 3, "inconclusiveHighHeartRate": 4,
                        "inconclusivePoorReading": 5, "inconclusiveOther": 6, "unrecognized": 100]
        for word in classifications { #expect(PulsVocabulary.ecgClassification(word) == expected[word], "\(word)") }
        #expect(PulsVocabulary.ecgClassification("classification_7") == 7)

        #expect(try Self.schemaWords(["stateOfMind", "properties", "kind"]).isEmpty, "“momentaryEmotion or dailyMood”: no comma")
        for (word, value) in ["momentaryEmotion": 1, "dailyMood": 2, "kind_3": 3] { #expect(PulsVocabulary.stateOfMindKind(word) == value) }
        let valences = try Self.schemaWords(["stateOfMind", "properties", "valenceClassification"])
        #expect(valences == ["veryUnpleasant", "unpleasant", "slightlyUnpleasant", "neutral", "slightlyPleasant", "pleasant", "veryPleasant"])
        for (index, word) in valences.enumerated() { #expect(PulsVocabulary.valenceClassification(word) == index + 1) }
        #expect(PulsVocabulary.valenceClassification("valence_8") == 8)

        let statuses = try Self.schemaWords(["medicationDose", "properties", "status"])
        #expect(statuses == ["taken", "skipped", "snoozed", "notLogged"])
        let logStatus = ["notInteracted": 1, "notificationNotSent": 2, "snoozed": 3, "taken": 4, "skipped": 5, "notLogged": 6]
        for (word, value) in logStatus { #expect(PulsVocabulary.medicationStatus(word) == value, "\(word)") }
        #expect(PulsVocabulary.medicationStatus("status_9") == 9)

        // Workout events (§4.1: pause, resume, lap, marker, motionPaused, motionResumed, segment).
        for (index, word) in ["pause", "resume", "lap", "marker", "motionPaused", "motionResumed", "segment", "pauseOrResumeRequest"].enumerated() {
            #expect(PulsVocabulary.workoutEvent(word) == index + 1, "\(word)")
        }
        #expect(PulsVocabulary.workoutEvent("event_12") == 12 && PulsVocabulary.workoutEvent("swim") == nil)
    }

    /// §4.1: "arrays of strings naming HealthKit's label and association cases" — every case.
    @Test func everyStateOfMindLabelAndAssociation() throws {
        #expect(RecordParts.stateOfMindLabels.count == 38 && RecordParts.stateOfMindAssociations.count == 18)
        for (word, value) in ["amazed": 1, "happy": 17, "worried": 31, "annoyed": 32, "satisfied": 38, "label_39": 39] {
            #expect(PulsVocabulary.stateOfMindLabel(word) == value, "\(word)")
        }
        for (word, value) in ["community": 1, "currentEvents": 2, "selfCare": 13, "weather": 18, "association_19": 19] {
            #expect(PulsVocabulary.stateOfMindAssociation(word) == value, "\(word)")
        }
        #expect(PulsVocabulary.stateOfMindLabel("nostalgic") == nil && PulsVocabulary.stateOfMindAssociation("label_3") == nil)
    }

    /// Every type of the protocol's catalogue (`catalog.json`, Apache-2.0) is one of HealthKit's
    /// this archive knows: a sample line of it reads into records whose every metric the catalogue
    /// describes, none of them left out.
    @Test func everyTypeOfTheCatalogueIsOneOfHealthKits() throws {
        let url = PulsCorpus.folder.deletingLastPathComponent().appendingPathComponent("samples/pulshealth-catalog/catalog.json")
        let catalog = try JSONParser.parse(Array(try Data(contentsOf: url)))
        let types = try #require(catalog["types"]?.arrayValue)
        #expect(types.count == 80)
        for type in types {
            let identifier = try #require(type["identifier"]?.stringValue)
            let kind = try #require(type["kind"]?.stringValue)
            let sink = Collected()
            let reader = PulsHealthReader(sink: sink, label: "catalog")
            let line: String
            switch kind {
            case "activitySummary":
                line = "{\"activitySummary\":{\"date\":1718000000000,\"localDate\":\"2024-06-10\",\"moveKcal\":400}}"
            default:
                line = Self.sampleLine(identifier, kind: kind, unit: type["unit"]?.stringValue)
            }
            try reader.read(line: Array(line.utf8), number: 1)
            #expect(sink.leftOut.isEmpty, "\(identifier): \(sink.leftOut)")
            #expect(!sink.records.isEmpty || kind == "activitySummary", "\(identifier)")
            if kind == "quantity" { #expect(QuantityCatalogue.entry(for: identifier) != nil, "\(identifier)") }
            if kind == "category" {
                // Sleep is the protocol's own `sleep` (§4.2); every other category is HealthKit's list.
                #expect(HealthCatalogue.categoryIdentifiers.contains(identifier) || identifier == "HKCategoryTypeIdentifierSleepAnalysis", "\(identifier)")
            }
            for record in sink.records {
                guard case let .success(mapped) = MetricMapping.map(record) else { Issue.record("\(identifier): \(record.type) not mapped"); continue }
                #expect(HealthCatalogue.describe(mapped.target.metric) != nil || mapped.target.metric == RecordParts.medicationDoseQuantity.metric,
                        "\(identifier) → \(mapped.target.metric)")
            }
        }
    }

    static func sampleLine(_ type: String, kind: String, unit: String?) -> String {
        let head = "{\"uuid\":\"\(UUID().uuidString)\",\"type\":\"\(type)\",\"kind\":\"\(kind)\",\"start\":1718000000000.5,\"end\":1718000060000.5,"
            + "\"sourceName\":\"Apple Watch\""
        switch kind {
        case "quantity": return head + ",\"value\":1,\"unit\":\"\(unit ?? "")\"}"
        case "category": return head + ",\"category\":0}"
        case "workout": return head + ",\"workout\":{\"activityType\":\"strength_training\",\"duration\":60}}"
        case "heartbeatSeries": return head + ",\"heartbeats\":[[0,false],[0.8,false]]}"
        case "ecg": return head + ",\"ecg\":{\"classification\":\"sinusRhythm\",\"symptomsStatus\":\"none\",\"voltagesUV\":[1,2]}}"
        case "stateOfMind":
            return head + ",\"stateOfMind\":{\"kind\":\"dailyMood\",\"valence\":0.4,\"valenceClassification\":\"slightlyPleasant\","
                + "\"labels\":[\"happy\",\"grateful\"],\"associations\":[\"family\"]}}"
        default: return head + ",\"medicationDose\":{\"status\":\"taken\",\"doseQuantity\":1,\"doseUnit\":\"tablet\"}}"
        }
    }

    /// The phone's words as the archive files them, through a real receiver's batch: the numbers
    /// HealthKit has, and every word not yet known kept as it came (never "other", never dropped).
    @Test func aBatchFilesHealthKitsNumbersAndKeepsWordsNotYetKnown() async throws {
        let harness = try await ReceiverHarness(zone: "UTC")
        func sample(_ kind: String, _ detail: String, type: String) -> String {
            "{\"uuid\":\"\(UUID().uuidString)\",\"type\":\"\(type)\",\"kind\":\"\(kind)\",\"start\":1718000000000.5,\"end\":1718003600000.5,"
                + "\"sourceName\":\"Apple Watch\",\(detail)}"
        }
        let lines = [
            sample("workout", "\"workout\":{\"activityType\":\"strength_training\",\"duration\":3600,\"events\":[{\"type\":\"pause\",\"start\":1718000600000},"
                   + "{\"type\":\"event_42\",\"start\":1718000700000},{\"type\":\"swimStroke\",\"start\":1718000800000}],"
                   + "\"activities\":[{\"activityType\":\"hiit\",\"start\":1718000000000,\"duration\":600},"
                   + "{\"activityType\":\"zumba_fusion\",\"start\":1718001000000,\"duration\":600}]}", type: "HKWorkoutTypeIdentifier"),
            sample("workout", "\"workout\":{\"activityType\":\"zumba_fusion\",\"duration\":60}", type: "HKWorkoutTypeIdentifier"),
            sample("ecg", "\"ecg\":{\"classification\":\"classification_9\",\"symptomsStatus\":\"none\",\"voltagesUV\":[]}",
                   type: "HKDataTypeIdentifierElectrocardiogram"),
            sample("stateOfMind", "\"stateOfMind\":{\"kind\":\"momentaryEmotion\",\"valence\":-0.2,\"valenceClassification\":\"slightlyUnpleasant\","
                   + "\"labels\":[\"stressed\",\"nostalgic\"],\"associations\":[\"work\"]}", type: "HKDataTypeIdentifierStateOfMind"),
            sample("medicationDose", "\"medicationDose\":{\"medication\":\"Ibuprofen\",\"status\":\"skipped\",\"doseQuantity\":2,\"doseUnit\":\"tablet\"}",
                   type: "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent"),
        ]
        #expect(try harness.post(PulsBatchText.batch(samples: lines)).status == 200)
        let rows = try harness.store.serialized {
            try harness.store.db.statement("SELECT metric, value, stage, activity FROM record WHERE metric NOT LIKE 'electrocardiogram.%' ORDER BY metric, start, value, stage, activity")
                .rows { row in [row.text(0), row.isNull(1) ? "-" : row.text(1), row.optionalText(2) ?? "-", row.optionalText(3) ?? "-"] }
        }
        #expect(rows.filter { $0[0] == "workout" }.map { $0[3] } == ["50", "zumba_fusion"], "strength training is 50, not other (3000)")
        #expect(rows.filter { $0[0] == "workout.activity" }.map { $0[3] } == ["63", "zumba_fusion"])
        #expect(rows.filter { $0[0] == "workout.event" }.map { [$0[1], $0[2]] } == [["1.0", "-"], ["42.0", "-"], ["-", "swimStroke"]])
        #expect(rows.filter { $0[0] == "electrocardiogram" }.map { $0[1] } == ["9.0"])
        #expect(rows.filter { $0[0].hasPrefix("stateOfMind.") }.map { [$0[0], $0[1], $0[2]] }
                == [["stateOfMind.association", "17.0", "-"], ["stateOfMind.kind", "1.0", "-"], ["stateOfMind.label", "-", "nostalgic"],
                    ["stateOfMind.label", "29.0", "-"], ["stateOfMind.valenceClassification", "3.0", "-"]])
        #expect(rows.filter { $0[0].hasPrefix("medicationDose") }.map { [$0[0], $0[1]] } == [["medicationDose", "5.0"], ["medicationDose.quantity", "2.0"]])
    }

    final class Collected: ExportSink {
        var records: [SourceRecord] = []
        var leftOut: [LeftOut] = []
        func record(_ record: SourceRecord) throws { records.append(record) }
        func activitySummary(_ summary: ActivitySummaryRecord) throws {}
        func leftOut(_ what: LeftOut) throws { leftOut.append(what) }
    }
}
