import EfferentCore
import EfferentHTTP
@testable import EfferentReceiver
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// What a receiver must take although it is not the plainest form (Puls Sync Protocol v1 §3–§5):
/// unknown fields and type identifiers, blank lines, explicit nulls, fractional timestamps, any
/// UUID case, a plain body, the probe; and lines the schemas allow that the archive cannot hold,
/// which are discarded with a 2xx rather than stalling the phone with a 400 (§7.2).
@Suite struct AcceptanceTests {
    @Test func whatTheProtocolAllowsIsTaken() async throws {
        let harness = try await ReceiverHarness()
        let unknownFields = Lines.edited(Lines.quantity) {
            $0["heartRateZone"] = .object(["zone": .number(3)])
            $0["category"] = .null
            $0["workout"] = .null
            $0["uuid"] = .string("aaaaaaaa-1111-4111-8111-111111111111")
        }
        let newType = Lines.edited(Lines.quantity) {
            $0["type"] = .string("HKQuantityTypeIdentifierHeartRateVariabilityRMSSD")
            $0["unit"] = .string("ms")
            $0["uuid"] = .string("BBBBBBBB-1111-4111-8111-111111111111")
        }
        var batch = Lines.editedHeader(PulsBatchText.batch(samples: [unknownFields, newType])) { $0["futureCount"] = .number(3) }
        batch = batch.replacingOccurrences(of: "\n", with: "\r\n\n  \n")
        let answer = try harness.post(batch, gzip: false)
        #expect(answer.status == 200 && answer.count("accepted") == 2, "\(answer.body)")
        let stats = try harness.phones.phoneStats()
        #expect(stats.map(\.type) == ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierHeartRateVariabilityRMSSD"])
        #expect(stats.first?.earliest == 1_718_000_000_123.5, "the fraction is kept")
        let probe = try harness.post(PulsBatchText.batch(type: "probe", reason: "manual"))
        #expect(probe.status == 200 && probe.counts == [0, 0, 0, 0, 0, 0, 0])
    }

    /// Valid by the schemas, unstorable in the archive: a sleep stage HealthKit does not define, a
    /// quantity without a value, a beat 10^300 seconds in. The sample is known (a duplicate later);
    /// its records are not made; the batch is a 200.
    @Test func validLinesTheArchiveCannotHoldAreDiscardedNotRefused() async throws {
        let harness = try await ReceiverHarness()
        let stage = Lines.edited(Lines.category) { $0["category"] = .number(9) }
        let valueless = Lines.edited(Lines.quantity) { $0["value"] = nil }
        let beats = Lines.edited(Lines.quantity) {
            $0["uuid"] = .string("cccccccc-1111-4111-8111-111111111111")
            $0["kind"] = .string("heartbeatSeries")
            $0["heartbeats"] = .array([.array([.number(1e300), .bool(false)])])
        }
        let answer = try harness.post(PulsBatchText.batch(samples: [stage, valueless, beats]))
        #expect(answer.status == 200 && answer.count("accepted") == 3, "\(answer.body)")
        #expect(try harness.store.recordCount() == 0)
        #expect(try harness.post(PulsBatchText.batch(samples: [stage])).count("duplicates") == 1)
    }

    @Test func readEndpointsAnswer() async throws {
        let harness = try await ReceiverHarness()
        #expect(try harness.post(PulsBatchText.batch(samples: [Lines.quantity, Lines.category, Lines.workout])).status == 200)
        let health = ReceiverHarness.Answer(harness.receiver.respond(to: HTTPRequest(method: "GET", target: "/healthz")))
        #expect(health.status == 200 && health.body == "{\"ok\":true}", "no token needed")
        let capabilities = harness.get("/v1/capabilities")
        #expect(capabilities.status == 200 && capabilities.json?["protocolVersions"] == .array([.number(1)]))
        #expect(capabilities.json?["features"]?.arrayValue?.count == 9 && capabilities.json?["server"]?.stringValue == "efferent")
        let stats = harness.get("/v1/stats").json?.arrayValue ?? []
        #expect(stats.count == 3)
        let rate = stats.first { $0["type"]?.stringValue == "HKQuantityTypeIdentifierHeartRate" }
        #expect(rate?["rows"]?.integerValue == 1 && rate?["batches"]?.integerValue == 1 && rate?["earliest"]?.integerValue == 1_718_000_000_123)
        // June 2024: one month window, the XOR of one UUID is that UUID.
        let digest = harness.get("/v1/digest?type=HKQuantityTypeIdentifierHeartRate&from=1717200000000&to=1719792000000").json?.arrayValue
        #expect(digest?.count == 1 && digest?.first?["window"]?.integerValue == 1_717_200_000_000)
        #expect(digest?.first?["digest"]?.stringValue == "11111111111141118111111111111111" && digest?.first?["rows"]?.integerValue == 1)
        #expect(harness.get("/v1/digest?type=HKUnknown&from=0&to=1").body == "[]")
        let uuids = harness.get("/v1/uuids?type=HKQuantityTypeIdentifierHeartRate&from=1718000000000&to=1718100000000")
        #expect(uuids.json?["uuids"] == .array([.string("11111111-1111-4111-8111-111111111111")]))
        #expect(harness.get("/v1/uuids?type=HKQuantityTypeIdentifierHeartRate&from=0&to=3024000000001").error == "range exceeds 35 days")
        for query in ["", "?type=x", "?type=x&from=1&to=1", "?type=x&from=a&to=2", "?from=1&to=2"] {
            #expect(harness.get("/v1/digest" + query).status == 400, "\(query)")
        }
        #expect(harness.get("/v1/stats", headers: ["Authorization": nil]).status == 401)
    }
}
