import EfferentCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import EfferentReader

/// The one renderer `efferent plot` and the dashboard share (issue 17 item 11, issue 16): round
/// ticks with units, time ticks in each day's zone, gaps broken, stages in distinct colours with a
/// legend, and an empty range said as such.
@Suite struct ChartRendererTests {
    func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

    @Test func valueTicksAreRoundNumbersThatCoverTheData() {
        #expect(NiceScale(low: 0, high: 10_059.33, target: 5, zero: true).ticks == [0, 2000, 4000, 6000, 8000, 10_000, 12_000])
        #expect(NiceScale(low: 47.3, high: 163.9, target: 5).ticks == [40, 60, 80, 100, 120, 140, 160, 180])
        let fractions = NiceScale(low: 0.94, high: 0.99, target: 5)
        #expect(fractions.ticks == [0.94, 0.95, 0.96, 0.97, 0.98, 0.99] && fractions.decimals == 2)
        let halves = NiceScale(low: 0, high: 2.2, target: 4, zero: true)
        #expect(halves.ticks == [0, 0.5, 1, 1.5, 2, 2.5] && halves.decimals == 1)
        let flat = NiceScale(low: 72, high: 72, target: 5)
        #expect(flat.low < 72 && flat.high > 72 && flat.ticks.count >= 2, "a flat series still gets an axis")
        #expect(NiceScale(low: 0, high: 0, target: 5, zero: true).ticks.count >= 2)
        #expect(NiceScale(low: 0, high: 0, target: 5).high == 1, "an all-zero series reads 0 to 1")
    }

    /// Issue 45: a value no body records (an agent's 1e308 kg, kept by an older writer) or a
    /// subnormal one never traps the axis, the labels or the drawing: each gives finite ticks.
    @Test func extremeValuesGiveAnAxisNotATrap() {
        let extremes: [(Double, Double)] = [(0, 1e308), (-1.7e308, 1.7e308), (.leastNonzeroMagnitude, .leastNonzeroMagnitude),
                                           (-.greatestFiniteMagnitude, -.greatestFiniteMagnitude), (.nan, .infinity), (72, 1e300)]
        for (low, high) in extremes {
            for zero in [false, true] {
                let scale = NiceScale(low: low, high: high, target: 5, zero: zero)
                #expect(scale.low.isFinite && scale.high.isFinite && scale.high > scale.low, "\(low)…\(high)")
                #expect((2...20).contains(scale.ticks.count) && scale.ticks.allSatisfy(\.isFinite), "\(low)…\(high): \(scale.ticks.count) ticks")
                #expect(scale.fraction(high).isFinite || !high.isFinite)
            }
        }
        #expect(DisplayUnit.number(1e308, decimals: 1) == "1e+308")
        #expect(DisplayUnit.number(-9.3e18, decimals: 0) == "-9.3e+18")
        #expect(DisplayUnit.number(1e15, decimals: 2) == "1e+15" && DisplayUnit.number(999_999_999_999_999, decimals: 0) == "999,999,999,999,999")
        #expect(DisplayUnit.number(12.5, decimals: 40) == "12.500000")
        #expect(DisplayUnit.of("bodyMass", unit: "kg").text(1e308) == "1e+308 kg")
        #expect(SVGText.number(1e308) == "1000000000000" && SVGText.number(-1e300) == "-1000000000000" && SVGText.number(12.34) == "12.3")
    }

    @Test func unitsAndNamesReadAsAPersonSaysThem() {
        #expect(DisplayUnit.of("steps", unit: "count").text(10_059.328744) == "10,059 steps")
        #expect(DisplayUnit.of("heartRate", unit: "count/min").text(61.6) == "62 bpm")
        #expect(DisplayUnit.of("oxygenSaturation", unit: "%").text(0.97) == "97.0 %")
        #expect(DisplayUnit.of("distanceWalkingRunning", unit: "m").text(6960.4) == "6.96 km")
        #expect(DisplayUnit.of("bodyMass", unit: "kg").text(72.14) == "72.1 kg")
        #expect(DisplayUnit.number(-0.004, decimals: 2) == "0.00" && DisplayUnit.number(1_234_567.891, decimals: 0) == "1,234,568")
        #expect(MetricTitle.of("restingHeartRate") == "Resting heart rate")
        #expect(MetricTitle.of("bloodPressureSystolic") == "Blood pressure systolic")
        #expect(MetricTitle.of("workout.heartRate.average") == "Workout heart rate average")
        #expect(MetricTitle.of("vo2Max") == "VO₂ max")
    }

    @Test func dayTicksThinOutFromDaysToMonthsToYears() {
        let week = TimeTicks.ticks(for: .days(since: day("2025-06-02"), count: 7), maxCount: 12)
        #expect(week.map(\.label) == ["Mon 2", "Tue 3", "Wed 4", "Thu 5", "Fri 6", "Sat 7", "Sun 8"])
        let year = TimeTicks.ticks(for: .days(since: day("2025-01-01"), count: 365), maxCount: 12)
        #expect(year.first?.label == "Jan 2025" && year.count == 12 && year[1].label == "Feb" && year[1].x == 31)
        let decade = TimeTicks.ticks(for: .days(since: day("2016-01-01"), count: 3653), maxCount: 12)
        #expect(decade.map(\.label) == (2016...2025).map(String.init))
    }

    /// The night of the clock change in Paris is 25 hours long: the hour ticks follow the wall
    /// clock of each moment (02:00 twice), and midnight is labelled with its day.
    @Test func timeTicksAreOnEachDaysOwnClock() {
        let zones = ZoneTimeline(zones: [day("2026-10-27"): "UTC"], fallback: "Europe/Paris")
        let start = zones.start(of: day("2026-10-25")), end = zones.start(of: day("2026-10-26"))
        #expect(end - start == 25 * 3600)
        let ticks = TimeTicks.ticks(for: .instants(start: start, end: end, zones: zones), maxCount: 30)
        #expect(ticks.first?.label == "Sun 25" && ticks.contains { $0.label == "06:00" })
        #expect(zones.clock(start + 2 * 3600) == "02:00" && zones.clock(start + 3 * 3600) == "02:00", "the hour repeats as the clocks go back")
        #expect(zones.iso(start) == "2026-10-25T00:00:00+02:00" && zones.iso(end) == "2026-10-26T00:00:00+01:00")
        // Another day in another zone keeps its own clock.
        let travel = ZoneTimeline(zones: [day("2025-06-01"): "America/New_York"], fallback: "Europe/Paris")
        #expect(travel.clock(Fixture.at("2025-06-01T12:00:00Z")) == "08:00" && travel.clock(Fixture.at("2025-06-02T12:00:00Z")) == "14:00")
    }

    /// A 40-minute run holds no whole hour: its heart-rate chart gets ticks at round minutes
    /// (it had no time axis at all, issue 30).
    @Test func aWorkoutsMinutesGetTicks() {
        let zones = ZoneTimeline(zones: [:], fallback: "Europe/Paris")
        let start = Fixture.at("2025-06-01T05:07:30Z"), end = start + 40 * 60
        let ticks = TimeTicks.ticks(for: .instants(start: start, end: end, zones: zones), maxCount: 11)
        #expect(ticks.map(\.label) == ["07:10", "07:15", "07:20", "07:25", "07:30", "07:35", "07:40", "07:45"], "\(ticks.map(\.label))")
        let narrow = TimeTicks.ticks(for: .instants(start: start, end: end, zones: zones), maxCount: 4)
        #expect(narrow.map(\.label) == ["07:10", "07:20", "07:30", "07:40"])
    }

    func bars(_ values: [Double?]) -> Chart {
        Chart(title: "Steps", unit: DisplayUnit.of("steps", unit: "count"), style: .bars, domain: .days(since: day("2025-06-02"), count: values.count),
              bins: values.enumerated().map { index, value in
                  ChartBin(start: Double(index), end: Double(index + 1), label: "day \(index)", count: value == nil ? 0 : 1, value: value)
              })
    }

    @Test func barsSkipMissingDaysAndTheTopTickCarriesTheUnit() throws {
        let svg = ChartRenderer(width: 600, height: 240).svg(bars([8000, nil, 12_500, 0, 3000]))
        #expect(svg.components(separatedBy: "class=\"c-bar\"").count - 1 == 4, "no bar where a day has no total")
        #expect(svg.contains(">14,000 steps</text>") && svg.contains(">0</text>"))
        #expect(!svg.contains("style=") && !svg.contains("<style"), "an SVG for a page with a strict CSP carries no inline style")
        #expect(XMLParser(data: Data(svg.utf8)).parse())
    }

    @Test func aBandBreaksAtEmptyBinsAndALoneBinIsADot() throws {
        let values: [(Double, Double, Double)?] = [(60, 80, 70), (62, 90, 75), nil, (55, 70, 61), (58, 66, 62), nil, nil, (70, 70, 70)]
        let chart = Chart(title: "Heart rate", unit: DisplayUnit.of("heartRate", unit: "count/min"), style: .band,
                          domain: .days(since: day("2025-06-02"), count: values.count),
                          bins: values.enumerated().map { index, value in
                              ChartBin(start: Double(index), end: Double(index + 1), label: "d\(index)", count: value == nil ? 0 : 3,
                                       min: value?.0, max: value?.1, mean: value?.2)
                          })
        let svg = ChartRenderer().svg(chart)
        #expect(svg.components(separatedBy: "class=\"c-band\"").count - 1 == 2, "two runs, not one band across the gap")
        #expect(svg.components(separatedBy: "class=\"c-mean\"").count - 1 == 2)
        #expect(svg.components(separatedBy: "class=\"c-dot\"").count - 1 == 1)
        #expect(XMLParser(data: Data(svg.utf8)).parse())
    }

    @Test func sleepStagesHaveDistinctColoursAndALegend() throws {
        let nights = [day("2025-06-02"), day("2025-06-03")]
        let chart = Chart(title: "Sleep", unit: DisplayUnit(symbol: "h"), style: .stacked, domain: .days(since: nights[0], count: 2),
                          bins: [ChartBin(start: 0, end: 1, label: "n1", count: 1, parts: ["asleepDeep": 1.5, "asleepCore": 4, "asleepREM": 1.2, "awake": 0.2]),
                                 ChartBin(start: 1, end: 2, label: "n2", count: 1, parts: ["asleepCore": 6])],
                          parts: ChartStyle.stages.prefix(5).map { Chart.Part(key: $0.key, name: $0.name) })
        let svg = ChartRenderer().svg(chart)
        for stage in ["asleepDeep", "asleepCore", "asleepREM", "awake"] { #expect(svg.contains("class=\"st-\(stage)\"")) }
        #expect(svg.contains("class=\"c-legend\"") && svg.contains(">Deep</text>") && svg.contains(">REM</text>"))
        // Four hues, not shades of one: no two stage colours are the same.
        let colours = ["--st-deep", "--st-core", "--st-rem", "--st-asleep", "--st-awake"].map { name in
            ChartStyle.lightColours.components(separatedBy: name + ":")[1].prefix(7)
        }
        #expect(Set(colours).count == colours.count)
    }

    @Test func anEmptyRangeSaysSo() throws {
        let svg = ChartRenderer(width: 500, height: 200, standalone: true).svg(bars([nil, nil, nil]))
        #expect(svg.contains("class=\"c-empty\"") && svg.contains(">No data in this range</text>"))
        #expect(svg.contains("<style>") && svg.contains("prefers-color-scheme:dark") && svg.contains("width=\"500\""),
                "a file of its own carries both themes and its size")
        #expect(XMLParser(data: Data(svg.utf8)).parse())
    }

    @Test func hypnogramRouteAndRingsAreWellFormed() throws {
        let zones = ZoneTimeline.uniform("Europe/Berlin")
        let start = Fixture.at("2025-06-02T21:00:00Z")
        let hypnogram = Hypnogram(title: "Night", start: start, end: start + 8 * 3600, zones: zones,
                                  stages: ["asleepCore": [start..<start + 3600, start + 7200..<start + 9000], "awake": [start + 3600..<start + 3700]])
        let night = ChartRenderer(width: 700, height: 150).svg(hypnogram)
        #expect(night.contains(">Awake</text>") && night.contains(">Core</text>") && !night.contains(">Deep</text>"))
        #expect(night.components(separatedBy: "class=\"st-asleepCore\"").count - 1 == 2)
        #expect(night.contains(">23:00</text>") || night.contains(">00:00</text>") || night.contains(">Tue 3</text>"), "local clock on the axis")
        #expect(XMLParser(data: Data(night.utf8)).parse())
        var points = [(latitude: Double, longitude: Double)]()
        for index in 0..<50 { points.append((latitude: 48.85 + Double(index) * 0.0001, longitude: 2.35 + Double(index) * 0.0002)) }
        let route = RouteMap(title: "Run", points: points).svg()
        #expect(route.contains("class=\"c-route\"") && route.contains("c-route-start") && route.contains(" m</text>"))
        #expect(XMLParser(data: Data(route.utf8)).parse())
        let rings = ActivityRings(title: "Rings", rings: [.init(key: "move", value: 250, goal: 500), .init(key: "exercise", value: 45, goal: 30),
                                                          .init(key: "stand", value: nil, goal: 12)]).svg()
        #expect(rings.contains("ring-move") && rings.contains("<circle class=\"c-ring ring-exercise\"") && !rings.contains("ring-stand"))
        #expect(XMLParser(data: Data(rings.utf8)).parse())
    }
}
