import EfferentCore
import EfferentHTTP
@testable import EfferentReceiver
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// Malformed batches (Puls Sync Protocol v1 §3, §4, §7.2): each is a 400 with one sentence naming
/// the line and the field, stores nothing, and the same batch with the fault mended is taken.
@Suite struct BodyRefusalTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let ndjson: String
        /// A fragment the sentence holds.
        let says: String
        var testDescription: String { name }
    }

    static let header = PulsBatchText.batch(samples: [Lines.quantity]).split(separator: "\n")[0]

    static let framing: [Case] = [
        Case(name: "not JSON", ndjson: "\(header)\n{\"uuid\":\n", says: "line 2 is not valid JSON"),
        Case(name: "a line that is an array", ndjson: "\(header)\n[1,2]\n", says: "line 2 is not a JSON object"),
        Case(name: "an empty body", ndjson: "\n\n", says: "no header line"),
        Case(name: "fewer lines than declared", ndjson: "\(header)\n", says: "declares 1 sample lines but 0 follow"),
        Case(name: "a line after the declared ones", ndjson: "\(header)\n\(Lines.quantity)\n\(Lines.category)\n", says: "line 3 follows the lines"),
        Case(name: "a line of the wrong kind in a slot", ndjson: "\(header)\n\(Lines.deletion)\n", says: "a deletion line where a sample line must stand"),
        Case(name: "kinds out of the fixed order", ndjson: PulsBatchText.batch(deletions: [Lines.deletion], routes: [Lines.route])
                .replacingOccurrences(of: "\(Lines.deletion)\n\(Lines.route)", with: "\(Lines.route)\n\(Lines.deletion)"), says: "a route line where a deletion line"),
        Case(name: "an unknown wrapper key", ndjson: "\(header)\n{\"heartRateZones\":{\"uuid\":\"x\"}}\n", says: "\"heartRateZones\", a line type"),
        Case(name: "two wrapper keys", ndjson: PulsBatchText.batch(deletions: [#"{"deleted":{"uuid":"11111111-1111-4111-8111-111111111111","type":"x"},"route":{}}"#]),
             says: "more than one wrapper key"),
        Case(name: "a profile that is null", ndjson: PulsBatchText.batch(profile: #"{"profile":null}"#), says: "is not a JSON object"),
        Case(name: "a profile line without its wrapper", ndjson: PulsBatchText.batch(profile: #"{"name":"x","email":null}"#), says: "a sample line where a profile line"),
        Case(name: "a second profile", ndjson: Lines.editedHeader(PulsBatchText.batch(profile: Lines.profile)) { $0["profileCount"] = .number(2) }, says: "\"profileCount\" is outside 0…1"),
        Case(name: "a negative count", ndjson: Lines.editedHeader(PulsBatchText.batch()) { $0["routeCount"] = .number(-1) }, says: "\"routeCount\" is outside"),
        Case(name: "a fractional count", ndjson: Lines.editedHeader(PulsBatchText.batch()) { $0["sampleCount"] = .number(0.5) }, says: "\"sampleCount\" is not an integer"),
        Case(name: "a malformed batchID", ndjson: Lines.editedHeader(PulsBatchText.batch()) { $0["batchID"] = .string("A1000000-0000-4000-8000") }, says: "\"batchID\" is not a UUID"),
        Case(name: "an unknown reason", ndjson: Lines.editedHeader(PulsBatchText.batch()) { $0["reason"] = .string("nightly") }, says: "\"reason\" is not one of"),
        Case(name: "an exportedAt out of range", ndjson: Lines.editedHeader(PulsBatchText.batch()) { $0["exportedAt"] = .number(1e16) }, says: "outside the years 0001 to 9999"),
        Case(name: "a zone name over 100 characters", ndjson: Lines.editedHeader(PulsBatchText.batch()) { $0["timeZoneID"] = .string(String(repeating: "A", count: 101)) },
             says: "longer than 100"),
    ]

    static func sample(_ name: String, _ says: String, _ edit: (inout [String: JSONValue]) -> Void, base: String = Lines.quantity) -> Case {
        Case(name: name, ndjson: PulsBatchText.batch(samples: [Lines.edited(base, edit)]), says: says)
    }

    static let samples: [Case] = [
        sample("an unknown kind", "\"kind\" is not a sample kind") { $0["kind"] = .string("mystery") },
        sample("activitySummary as a sample kind", "\"kind\" is not a sample kind") { $0["kind"] = .string("activitySummary") },
        sample("a malformed UUID", "\"uuid\" is not a UUID") { $0["uuid"] = .string("11111111-1111-4111-8111-11111111111Z") },
        sample("a start of 0", "\"start\" is 0") { $0["start"] = .number(0) },
        sample("a start in the year 10000", "outside the years 0001 to 9999") { $0["start"] = .number(253_402_300_800_000) },
        sample("a start before the year 1", "outside the years 0001 to 9999") { $0["start"] = .number(-62_135_596_800_001) },
        sample("an ISO 8601 start", "\"start\" is not epoch milliseconds") { $0["start"] = .string("2024-06-10T06:13:20Z") },
        sample("a value that is text", "\"value\" is not a number") { $0["value"] = .string("62") },
        sample("metadata holding an object", "\"metadata\" holds a value") { $0["metadata"] = .object(["a": .object([:])]) },
        sample("a context without its offset", "\"utcOffsetSeconds\" is missing") {
            $0["startContext"] = .object(["timeZoneID": .string("Europe/Berlin"), "source": .string("device_current"), "confidence": .string("inferred")])
        },
        sample("a category sample without its integer", "\"category\" is missing", { $0["category"] = nil }, base: Lines.category),
        sample("a category over 16 bits", "\"category\" is outside -32768…32767", { $0["category"] = .number(40_000) }, base: Lines.category),
        sample("a category with a fraction", "\"category\" is not an integer", { $0["category"] = .number(3.5) }, base: Lines.category),
        sample("a workout without its detail", "\"workout\" is missing", { $0["workout"] = .null }, base: Lines.workout),
        sample("a workout without an activity type", "\"activityType\" is missing", { $0["workout"] = .object(["duration": .number(60)]) }, base: Lines.workout),
        sample("a heartbeat with three members", "\"heartbeats\" holds a beat") {
            $0["kind"] = .string("heartbeatSeries")
            $0["heartbeats"] = .array([.array([.number(0.5), .bool(false), .number(1)])])
        },
        sample("an ECG without its trace", "\"voltagesUV\" is missing") {
            $0["kind"] = .string("ecg")
            $0["ecg"] = .object(["classification": .string("sinusRhythm"), "symptomsStatus": .string("none")])
        },
        sample("a State of Mind valence over 1", "\"valence\" is outside") {
            $0["kind"] = .string("stateOfMind")
            $0["stateOfMind"] = .object(["kind": .string("dailyMood"), "valence": .number(2), "valenceClassification": .string("pleasant"),
                                         "labels": .array([]), "associations": .array([])])
        },
        sample("a medication dose without a status", "\"status\" is missing") {
            $0["kind"] = .string("medicationDose")
            $0["medicationDose"] = .object(["medication": .string("Ibuprofen")])
        },
    ]

    static func wrapped(_ kind: String, _ line: String, _ wrapper: String, _ name: String, _ says: String, _ edit: (inout [String: JSONValue]) -> Void) -> Case {
        Case(name: name, ndjson: Lines.batch(kind, Lines.edited(line, in: wrapper, edit)), says: says)
    }

    static let wrappedLines: [Case] = [
        wrapped("deletion", Lines.deletion, "deleted", "a deletion with a malformed UUID", "\"uuid\" is not a UUID") { $0["uuid"] = .string("4444") },
        wrapped("route", Lines.route, "route", "a route point without lat", "\"lat\" is missing") {
            $0["points"] = .array([.object(["t": .number(1_718_000_001_000), "lon": .number(1)])])
        },
        wrapped("route", Lines.route, "route", "a route point at t = 0", "\"t\" is 0") {
            $0["points"] = .array([.object(["t": .number(0), "lat": .number(1), "lon": .number(1)])])
        },
        wrapped("series", Lines.series, "series", "a series point without a value", "\"value\" is missing") {
            $0["points"] = .array([.object(["t": .number(1_718_000_001_000)])])
        },
        wrapped("aggregate", Lines.aggregate, "aggregate", "an unknown statistic", "\"func\" is not one of") { $0["func"] = .string("median") },
        wrapped("aggregate", Lines.aggregate, "aggregate", "a fortnight bucket", "\"intervalUnit\" is not one of") { $0["intervalUnit"] = .string("fortnight") },
        wrapped("aggregate", Lines.aggregate, "aggregate", "an unknown device filter", "\"deviceFilter\" is not one of") { $0["deviceFilter"] = .string("ipad") },
        wrapped("aggregate", Lines.aggregate, "aggregate", "an interval of 0", "\"intervalValue\" is outside") { $0["intervalValue"] = .number(0) },
        wrapped("aggregate", Lines.aggregate, "aggregate", "a bucket ending at its start", "\"bucketEnd\" is not after") { $0["bucketEnd"] = $0["bucketStart"] },
        wrapped("activitySummary", Lines.summary, "activitySummary", "a summary without its date", "\"date\" is missing") { $0["date"] = nil },
        wrapped("activitySummary", Lines.summary, "activitySummary", "a local date that is no date", "\"localDate\" is not a date") { $0["localDate"] = .string("2024-02-30") },
        wrapped("activitySummary", Lines.summary, "activitySummary", "a move mode of 2", "\"moveMode\" is outside 0…1") { $0["moveMode"] = .number(2) },
        wrapped("profile", Lines.profile, "profile", "a sex outside the enum", "\"biologicalSex\" is not one of") { $0["biologicalSex"] = .string("unknown") },
        wrapped("profile", Lines.profile, "profile", "a birth date that is text", "\"dateOfBirth\" is not epoch milliseconds") { $0["dateOfBirth"] = .string("1990-01-01") },
    ]

    @Test(arguments: framing + samples + wrappedLines)
    func malformedInputIsA400StoringNothing(_ refused: Case) async throws {
        let harness = try await ReceiverHarness()
        let answer = try harness.post(refused.ndjson)
        #expect(answer.status == 400, "\(answer.body)")
        #expect(answer.error?.contains(refused.says) == true, "\(answer.error ?? answer.body)")
        #expect(try harness.store.recordCount() == 0 && harness.phones.phoneStats().isEmpty)
        let phones = try harness.phones.pairedPhones(today: harness.store.zone.day(of: Date().timeIntervalSince1970))
        #expect(phones.first?.lastError == "400: \(answer.error ?? "")", "efferent status shows it")
        #expect(harness.log.all.contains { $0.contains("\"batch\":{\"status\":400") })
    }

    @Test func brokenGzipIsMalformed() async throws {
        let harness = try await ReceiverHarness()
        let packed = try gzipped(Array(PulsBatchText.batch(samples: [Lines.quantity]).utf8))
        for body in [Array(packed.dropLast(8)), Array(repeating: 0x41, count: 64), packed + [1, 2, 3]] {
            let request = HTTPRequest(method: "POST", target: "/v1/batches", headers: ["Authorization": "Bearer \(harness.token)",
                                                                                  "Content-Encoding": "gzip"], body: body)
            let answer = ReceiverHarness.Answer(harness.receiver.respond(to: request))
            #expect(answer.status == 400 && answer.error?.contains("gzip") == true, "\(answer.body)")
        }
        #expect(try harness.store.recordCount() == 0)
    }
}
