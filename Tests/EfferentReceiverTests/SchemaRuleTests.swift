import EfferentCore
@testable import EfferentReceiver
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// The rules read from the protocol's own JSON Schemas (Tests/Fixtures/puls-sync-v1/schema,
/// Apache-2.0): every field a schema requires, removed from a valid line, is a 400; every value of
/// every enum is taken and a value outside it is a 400.
@Suite struct SchemaRuleTests {
    static func required(_ schema: String, _ path: [String]) throws -> [String] {
        var node = try PulsCorpus.schema(schema)
        for key in path { node = node[key] ?? .null }
        return node["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// A line of `kind` whose payload (under `wrapper`, then `detail`) loses `field`.
    struct Removal {
        let schema: String
        let path: [String]
        let kind: String
        let line: String
        let wrapper: String?
        /// Inside the payload: a detail object, or the first element of an array.
        let inner: String?
    }

    static let removals = [
        Removal(schema: "sample", path: [], kind: "sample", line: Lines.quantity, wrapper: nil, inner: nil),
        Removal(schema: "sample", path: ["$defs", "workout"], kind: "sample", line: Lines.workout, wrapper: nil, inner: "workout"),
        Removal(schema: "deletion", path: ["properties", "deleted"], kind: "deletion", line: Lines.deletion, wrapper: "deleted", inner: nil),
        Removal(schema: "route", path: ["properties", "route"], kind: "route", line: Lines.route, wrapper: "route", inner: nil),
        Removal(schema: "route", path: ["$defs", "point"], kind: "route", line: Lines.route, wrapper: "route", inner: "points"),
        Removal(schema: "series", path: ["properties", "series"], kind: "series", line: Lines.series, wrapper: "series", inner: nil),
        Removal(schema: "series", path: ["$defs", "point"], kind: "series", line: Lines.series, wrapper: "series", inner: "points"),
        Removal(schema: "aggregate", path: ["properties", "aggregate"], kind: "aggregate", line: Lines.aggregate, wrapper: "aggregate", inner: nil),
        Removal(schema: "activity-summary", path: ["properties", "activitySummary"], kind: "activitySummary", line: Lines.summary,
                wrapper: "activitySummary", inner: nil),
    ]

    @Test func everyRequiredFieldIsRequired() async throws {
        let harness = try await ReceiverHarness()
        var checked = 0
        for removal in Self.removals {
            for field in try Self.required(removal.schema, removal.path) {
                // §4.5: an aggregate's `value` key is always sent, and a receiver reads it absent as null.
                if removal.schema == "aggregate" && field == "value" { continue }
                let line = Lines.edited(removal.line, in: removal.wrapper) { payload in
                    guard let inner = removal.inner else { payload[field] = nil; return }
                    switch payload[inner] {
                    case var .object(detail)?:
                        detail[field] = nil
                        payload[inner] = .object(detail)
                    case var .array(items)?:
                        if case var .object(first) = items[0] { first[field] = nil; items[0] = .object(first) }
                        payload[inner] = .array(items)
                    default: break
                    }
                }
                let answer = try harness.post(Lines.batch(removal.kind, line))
                #expect(answer.status == 400 && answer.error?.contains("\"\(field)\"") == true, "\(removal.schema) \(removal.path) \(field): \(answer.body)")
                checked += 1
            }
        }
        let header = PulsBatchText.batch(samples: [Lines.quantity])
        for field in try Self.required("header", []) {
            let answer = try harness.post(Lines.editedHeader(header) { $0[field] = nil })
            #expect(answer.status == 400 && answer.error?.contains("\"\(field)\"") == true, "header \(field): \(answer.body)")
            checked += 1
        }
        #expect(checked >= 25)
        #expect(try harness.store.recordCount() == 0)
    }

    /// Each enum value of a schema, in a line that is otherwise valid, is taken; one outside is refused.
    @Test func everyEnumIsExactlyItsValues() async throws {
        let harness = try await ReceiverHarness()
        let aggregate = try PulsCorpus.schema("aggregate")["properties"]?["aggregate"]?["properties"]
        var cases: [(field: String, values: [String], make: (String) -> String)] = [
            ("reason", try PulsCorpus.schema("header")["properties"]?["reason"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? [],
             { value in Lines.editedHeader(PulsBatchText.batch()) { $0["reason"] = .string(value) } }),
        ]
        for field in ["func", "intervalUnit", "deviceFilter"] {
            cases.append((field, aggregate?[field]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? [], { value in
                Lines.batch("aggregate", Lines.edited(Lines.aggregate, in: "aggregate") { $0[field] = .string(value) })
            }))
        }
        let sexes = try PulsCorpus.schema("profile")["properties"]?["profile"]?["properties"]?["biologicalSex"]?["anyOf"]?.arrayValue?
            .first?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
        cases.append(("biologicalSex", sexes, { value in Lines.batch("profile", Lines.edited(Lines.profile, in: "profile") { $0["biologicalSex"] = .string(value) }) }))
        for (field, values, make) in cases {
            #expect(values.count >= 3, "\(field)")
            for (index, value) in values.enumerated() {
                let batch = Lines.editedHeader(make(value)) { $0["batchID"] = .string("C0000000-0000-4000-8000-\(String(format: "%012d", index))") }
                #expect(try harness.post(batch).status == 200, "\(field) \(value)")
            }
            let refused = try harness.post(make("x-\(field)"))
            #expect(refused.status == 400 && refused.error?.contains("\"\(field)\" is not one of") == true, "\(field): \(refused.body)")
        }
        let kinds = try PulsCorpus.schema("sample")["properties"]?["kind"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(kinds) == PulsSample.kinds)
    }
}
