@testable import EfferentCore
import Foundation
import Testing

/// Decision A.9's tables: the naming rule, category integers, and units that agree with what the
/// PulsHealth app sends (its published `catalog.json`, copied into the fixtures with its licence).
@Suite struct CatalogueTests {
    @Test func theNamingRuleKeepsTheCatalogueAndLowersLeadingCapitalsAsSwiftDoes() {
        #expect(HealthKitName.metric(for: "HKQuantityTypeIdentifierStepCount") == "steps")
        #expect(HealthKitName.metric(for: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN") == "heartRateVariability")
        #expect(HealthKitName.metric(for: "HKCategoryTypeIdentifierSleepAnalysis") == "sleep")
        #expect(HealthKitName.metric(for: "HKWorkoutTypeIdentifier") == "workout")
        #expect(HealthKitName.metric(for: "HKQuantityTypeIdentifierBloodPressureSystolic") == "bloodPressureSystolic")
        #expect(HealthKitName.metric(for: "HKQuantityTypeIdentifierVO2Max") == "vo2Max")
        #expect(HealthKitName.metric(for: "HKQuantityTypeIdentifierUVExposure") == "uvExposure")
        #expect(HealthKitName.metric(for: "HKCategoryTypeIdentifierAppleStandHour") == "appleStandHour")
        #expect(HealthKitName.metric(for: "HKDataTypeIdentifierElectrocardiogram") == "electrocardiogram")
        #expect(HealthKitName.metric(for: "HKDataTypeSleepDurationGoal") == "sleepDurationGoal")
        #expect(HealthKitName.metric(for: "HKQuantityTypeIdentifierForcedExpiratoryVolume1") == "forcedExpiratoryVolume1")
        #expect(HealthKitName.lowerCamel("ECG") == "ecg")
        #expect(HealthKitName.lowerCamel("AverageMETs") == "averageMETs")
        #expect(HealthKitName.lowerCamel("already") == "already")
    }

    @Test func categoryValuesAreHealthKitsIntegers() {
        #expect(CategoryValue.integer("HKCategoryValueAppleStandHourStood") == 0)
        #expect(CategoryValue.integer("HKCategoryValueAppleStandHourIdle") == 1)
        #expect(CategoryValue.integer("HKCategoryValueSeverityModerate") == 3)
        #expect(CategoryValue.integer("HKCategoryValueMenstrualFlowNone") == 5)
        #expect(CategoryValue.integer(nil) == 0, "no value is notApplicable")
        #expect(CategoryValue.integer("HKCategoryValueNotApplicable") == 0)
        #expect(CategoryValue.integer("4") == 4, "a PulsHealth batch sends the integer")
        #expect(CategoryValue.integer("HKCategoryValueSomethingNew") == nil)
        #expect(CategoryValue.integer("12345678901") == nil)
    }

    @Test func partsAndDescriptions() {
        #expect(RecordParts.workoutStatistic("HKQuantityTypeIdentifierHeartRate", .average) == "workout.heartRate.average")
        #expect(RecordParts.workoutStatistic("HKQuantityTypeIdentifierActiveEnergyBurned", .sum, inActivity: true)
                == "workout.activity.activeEnergy.sum")
        #expect(HealthCatalogue.describe("workout.activity.heartRate.maximum") == .init(metric: "workout.activity.heartRate.maximum",
                                                                                     kind: .record, unit: "count/min"))
        #expect(HealthCatalogue.describe("distanceCycling")?.kind == .total)
        #expect(HealthCatalogue.describe("bloodPressureDiastolic") == .init(metric: "bloodPressureDiastolic", kind: .record, unit: "mmHg"))
        #expect(HealthCatalogue.describe("appleStandHour") == .init(metric: "appleStandHour", kind: .record, unit: nil))
        #expect(HealthCatalogue.describe("workoutRoute.latitude")?.unit == "deg")
        #expect(HealthCatalogue.describe("noSuchThing") == nil)
        #expect(RecordParts.isSampleSeries("workoutRoute.speed") && RecordParts.isSampleSeries("electrocardiogram.voltage"))
        #expect(!RecordParts.isSampleSeries("heartRate"))
        let names = Set(HealthCatalogue.metricNames)
        #expect(names.isSuperset(of: ["steps", "sleep", "workout", "heartRate", "bloodPressureSystolic", "workoutRoute.latitude",
                                      "workout.heartRate.average", "heartbeatSeries", "activitySummary.appleStandHours"]))
    }

    /// Every quantity type PulsHealth sends has our unit and our cumulative-or-not, so a batch's
    /// values need no conversion and its totals are summed as an export's are.
    @Test func unitsAndStylesAgreeWithThePulsHealthCatalog() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/samples/pulshealth-catalog/catalog.json")
        let catalog = try JSONParser.parse(Array(try Data(contentsOf: url)))
        var compared = 0
        for type in catalog["types"]?.arrayValue ?? [] where type["kind"] == .string("quantity") {
            let identifier = try #require(type["identifier"]?.stringValue)
            let entry = try #require(QuantityCatalogue.entry(for: identifier), "\(identifier)")
            #expect(entry.unit == type["unit"]?.stringValue, "\(identifier)")
            #expect((entry.style == .cumulative) == (type["aggregationStyle"] == .string("cumulative")), "\(identifier)")
            compared += 1
        }
        #expect(compared == 62)
    }
}
