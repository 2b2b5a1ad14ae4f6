import EfferentCore
import Testing
@testable import EfferentReader

@Suite struct AnswerRenderingTests {
    struct Fixed: Answer {
        var json: JSONValue { .object(["rows": .number(2)]) }
        var table: AnswerTable {
            AnswerTable(columns: ["day", "note", "value"],
                        rows: [[.string("2024-01-01"), .string("plain"), .number(1000)],
                               [.string("2024-01-02"), .string("says \"hi\", twice\nthen stops"), .null],
                               [.string("2024-01-03"), .string("a"), .number(2.5)]])
        }
    }

    @Test func tableAlignsColumnsAndRightAlignsNumbers() throws {
        let simple = AnswerTable(columns: ["day", "steps"], rows: [[.string("2024-01-01"), .number(1000)], [.string("2024-01-02"), .null],
                                                                 [.string("2024-01-03"), .number(2.5)]])
        #expect(simple.alignedText() == """
            day         steps
            2024-01-01   1000
            2024-01-02  -
            2024-01-03    2.5

            """)
    }

    @Test func ndjsonKeepsColumnOrder() throws {
        #expect(try Fixed().rendered(as: .ndjson) == """
            {"day":"2024-01-01","note":"plain","value":1000}
            {"day":"2024-01-02","note":"says \\"hi\\", twice\\nthen stops","value":null}
            {"day":"2024-01-03","note":"a","value":2.5}

            """)
    }

    @Test func csvQuotesAsRFC4180Says() throws {
        #expect(try Fixed().rendered(as: .csv) ==
            "day,note,value\r\n2024-01-01,plain,1000\r\n2024-01-02,\"says \"\"hi\"\", twice\nthen stops\",\r\n2024-01-03,a,2.5\r\n")
    }

    /// A comma or a quote followed by a combining mark is one Character that is neither; the
    /// field is still quoted and its quote doubled.
    @Test func csvQuotesACommaOrQuoteThatCarriesACombiningMark() {
        #expect(AnswerTable.csvField("a,\u{301}b") == "\"a,\u{301}b\"")
        #expect(AnswerTable.csvField("say \"\u{301}hi") == "\"say \"\"\u{301}hi\"")
        #expect(AnswerTable.csvField("caf\u{E9} plain") == "caf\u{E9} plain")
        var writer = JSONWriter(reservingCapacity: 64)
        AnswerTable.writeCSVField("x,\u{301}", into: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"x,\u{301}\"")
    }

    @Test func jsonIsTheCompactAnswerObject() throws {
        #expect(try Fixed().rendered(as: .json) == "{\"rows\":2}\n")
    }

    @Test func hoistingNeedsMoreThanOneRowAndDropsEmptyColumns() {
        let many = HoistedRows(columns: ["a", "b", "c"], rows: [[.number(1), .string("x"), .null], [.number(2), .string("x"), .null]])
        #expect(many.sameOnEveryRow == ["b": .string("x")])
        #expect(many.table.columns == ["a"])
        #expect(many.fullTable.columns == ["a", "b"])
        let one = HoistedRows(columns: ["a", "b"], rows: [[.number(1), .string("x")]])
        #expect(one.sameOnEveryRow.isEmpty)
        #expect(one.table.columns == ["a", "b"])
    }

    @Test func sleepTableHasAColumnPerStageSeen() throws {
        let source = EventList([try Fixture.sleep("2024-01-01", nil, "2024-01-01T22:00:00Z", "2024-01-02T06:00:00Z", "asleepREM")])
        let table = try SleepAnswer(from: source, range: Fixture.range("2024-01-01", "2024-01-01")).table
        #expect(table.columns == ["night", "start", "end", "asleepHours", "inBedHours", "segments", "asleepREM", "naps", "napAsleepHours"])
        #expect(table.rows.first?[3] == .number(8))
    }
}
