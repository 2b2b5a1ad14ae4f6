import EfferentCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import EfferentReader

@Suite struct SVGChartTests {
    @Test func barsOnePerDayWithValuesSkippingGaps() throws {
        let days = (0..<5).map { CalendarDay("2024-03-01")!.adding(days: $0) }
        let svg = SVGChart.bars(title: "steps <per> day", unit: "count", days: days, values: [100, nil, 250, 0, 50])
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.components(separatedBy: "fill=\"#4a7fb5\"").count - 1 == 3)
        #expect(svg.contains("steps &lt;per&gt; day") && svg.contains("2024-03-03: 250 count"))
        // Well-formed enough for an XML parser.
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse())
    }

    @Test func sleepStacksStagesAndLineFollowsReadings() {
        let sleep = SVGChart.sleep(title: "Sleep", nights: [CalendarDay("2024-03-01")!],
                                   stages: [["asleepDeep": 1.5, "asleepCore": 4, "awake": 0.25, "inBed": 8]])
        #expect(sleep.contains("asleepDeep: 1.50 h") && sleep.contains("asleepCore: 4 h") && !sleep.contains("inBed:"))
        let line = SVGChart.line(title: "heartRate", unit: "count/min", points: [(0, 60), (60, 72), (120, 65)])
        #expect(line.contains("<path d=\"M64.0 ") && line.components(separatedBy: " L").count == 3)
        #expect(XMLParser(data: Data(line.utf8)).parse())
    }
}
