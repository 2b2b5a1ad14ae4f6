import EfferentCore
import EfferentTestSupport
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

    /// `PageRows` decides and writes what `HoistedRows` holds of the same cells, to the byte:
    /// random pages of nulls, numbers (0 and -0 among them), strings needing escapes or equal
    /// only as Swift strings (`é` and `e` with a combining accent), and instants in zones whose
    /// texts coincide (Paris and Berlin), with a quarter-hour offset, or falling back to UTC.
    @Test func pageRowsWriteWhatHoistedRowsHoldToTheByte() throws {
        var random = SplitMix64(seed: 29)
        let pool: [RowCell] = [.null, .number(0), .number(-0.0), .number(2.5), .number(1e21), .string("Watch"), .string("Ann's \"Watch\"\n"),
                               .string("caf\u{E9}"), .string("cafe\u{301}"), .string("2023-11-14T22:13:20Z"),
                               .instant(1_700_000_000, zone: "Europe/Paris"), .instant(1_700_000_000, zone: "Europe/Berlin"),
                               .instant(1_700_000_000, zone: nil), .instant(1_700_000_000, zone: "UTC"), .instant(1_700_000_000, zone: "Not/AZone"),
                               .instant(1_700_003_600, zone: "Asia/Kathmandu"), .instant(-86_399, zone: "America/New_York")]
        let names = ["a", "b", "c", "d"]
        var hoisted = 0, dropped = 0
        for _ in 0..<3000 {
            let count = Int.random(in: 0...4, using: &random)
            // Each column draws from two cells of the pool, so a column is often the same on every row.
            let choices = names.map { _ in (0..<2).map { _ in pool[Int.random(in: 0..<pool.count, using: &random)] } }
            let rows = (0..<count).map { _ in choices.map { $0[Int.random(in: 0..<$0.count, using: &random)] } }
            let clock = LocalClock()
            let tree = HoistedRows(columns: names, rows: rows.map { $0.map { $0.value(clock) } })
            let page = PageRows(columns: names, rows: rows, clock: clock)
            var writer = JSONWriter()
            try writer.object(page.members, writing: "rows") { writer throws(JSONError) in try page.writeRows(into: &writer) }
            #expect(try writer.bytes == JSONValue.object(tree.members).canonicalBytes(), "\(rows)")
            hoisted += tree.sameOnEveryRow.count
            dropped += names.count - tree.fullTable.columns.count
        }
        #expect(hoisted > 500 && dropped > 200, "\(hoisted) columns hoisted, \(dropped) dropped")
    }

    @Test func sleepTableHasAColumnPerStageSeen() throws {
        let source = EventList([try Fixture.sleep("2024-01-01", nil, "2024-01-01T22:00:00Z", "2024-01-02T06:00:00Z", "asleepREM")])
        let table = try SleepAnswer(from: source, range: Fixture.range("2024-01-01", "2024-01-01")).table
        #expect(table.columns == ["night", "start", "end", "asleepHours", "inBedHours", "segments", "asleepREM", "naps", "napAsleepHours"])
        #expect(table.rows.first?[3] == .number(8))
    }
}
