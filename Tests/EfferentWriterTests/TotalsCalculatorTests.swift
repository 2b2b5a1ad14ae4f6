import Testing
@testable import EfferentWriter

/// §4.1: overlapping samples of one metric are never summed twice; priority decides, prorated.
@Suite struct TotalsCalculatorTests {
    typealias Sample = TotalsCalculator.Sample
    let day = [(start: Int64(0), end: Int64(86_400))]

    @Test func samplesOfOneSourceAddUp() {
        let samples = [Sample(start: 0, end: 600, value: 100, rank: 0, source: "Watch"),
                       Sample(start: 600, end: 1200, value: 50, rank: 0, source: "Watch")]
        #expect(TotalsCalculator.totals(of: samples, buckets: day) == [150])
    }

    @Test func aCoveredLowerSourceCountsNothing() {
        // The iPhone saw the same walk the Watch did: only the Watch's steps count.
        let samples = [Sample(start: 0, end: 600, value: 700, rank: 0, source: "Apple Watch"),
                       Sample(start: 100, end: 500, value: 650, rank: 1, source: "iPhone")]
        #expect(TotalsCalculator.totals(of: samples, buckets: day) == [700])
    }

    @Test func aPartlyCoveredSampleIsProrated() {
        // iPhone 0…1000 s with 1000 steps; the Watch covers 0…400 with 500: the iPhone adds 600
        // for its uncovered 600 s.
        let samples = [Sample(start: 0, end: 400, value: 500, rank: 0, source: "Watch"),
                       Sample(start: 0, end: 1000, value: 1000, rank: 1, source: "iPhone")]
        #expect(TotalsCalculator.totals(of: samples, buckets: day) == [1100])
        // Order of input does not matter.
        #expect(TotalsCalculator.totals(of: samples.reversed(), buckets: day) == [1100])
    }

    @Test func aThirdSourceFillsOnlyWhatNeitherCovers() {
        let samples = [Sample(start: 0, end: 100, value: 10, rank: 0, source: "Watch"),
                       Sample(start: 200, end: 300, value: 20, rank: 1, source: "iPhone"),
                       Sample(start: 0, end: 400, value: 400, rank: 2, source: "Pedometer++")]
        // The app's 400 over 400 s: 100 s and 100 s are covered, 200 s remain → 200.
        #expect(TotalsCalculator.totals(of: samples, buckets: day) == [230])
    }

    @Test func twoSourcesOfOneClassNeverDoubleCount() {
        let samples = [Sample(start: 0, end: 100, value: 10, rank: 0, source: "Apple Watch (old)"),
                       Sample(start: 0, end: 100, value: 12, rank: 0, source: "Apple Watch (new)")]
        #expect(TotalsCalculator.totals(of: samples, buckets: day) == [12], "ties broken by name: 'new' < 'old'")
    }

    @Test func bucketsSplitASampleByTimeAndSkipEmptyOnes() {
        let hours = (0..<3).map { (start: Int64($0) * 3600, end: Int64($0 + 1) * 3600) }
        let samples = [Sample(start: 3000, end: 4200, value: 120, rank: 0, source: "iPhone")]
        #expect(TotalsCalculator.totals(of: samples, buckets: hours) == [60, 60, nil])
        let instant = [Sample(start: 7200, end: 7200, value: 5, rank: 1, source: "iPhone"),
                       Sample(start: 7000, end: 7300, value: 30, rank: 0, source: "Watch")]
        #expect(TotalsCalculator.totals(of: instant, buckets: hours) == [nil, 20, 10], "an instant under a higher source counts nothing")
    }

    @Test func aSampleAcrossMidnightIsShared() {
        let samples = [Sample(start: 86_000, end: 87_200, value: 120, rank: 0, source: "iPhone")]
        #expect(TotalsCalculator.totals(of: samples, buckets: day) == [40])
        #expect(TotalsCalculator.totals(of: samples, buckets: [(start: 86_400, end: 172_800)]) == [80])
    }

    @Test func priorityMatchesDeviceThenName() {
        let priority = SourcePriority()
        #expect(priority.rank(source: "Alexandre's Apple Watch", device: nil) == 0)
        #expect(priority.rank(source: "Health", device: "Watch") == 0)
        #expect(priority.rank(source: "Simon’s iPhone", device: nil) == 1)
        #expect(priority.rank(source: "MyFitnessPal", device: nil) == 2)
        #expect(SourcePriority(parsing: "iPhone, Watch")?.rank(source: "iPhone", device: nil) == 0)
        #expect(SourcePriority(parsing: " , ") == nil)
    }
}
