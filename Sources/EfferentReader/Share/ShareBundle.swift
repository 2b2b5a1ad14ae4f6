import EfferentCore
import Foundation

/// The FHIR R4 files of a share, built from the reader's own answers — `DailyAnswer`,
/// `SleepAnswer`, `WorkoutsAnswer` and the events `samples` lists — so every number in them is
/// the number `efferent daily`, `sleep`, `workouts` and `samples` print, never a second count.
///
/// The first file is a `document` Bundle (FHIR R4 §3.3, https://hl7.org/fhir/R4/documents.html):
/// a Composition with a narrative a person reads without FHIR software, the Patient, and an
/// Observation per metric and day (blood pressure as the vital-signs panel), per night of sleep
/// and per workout. With `raw`, `rawFiles` adds `collection` Bundles of every reading, cut into
/// files of bounded size as they are read.
public struct ShareBundle: Sendable {
    public let content: ShareContent
    public let name: String?
    public let title: String
    /// When it was sealed, Unix seconds.
    public let generated: Int64
    /// The archive's zone, for dates a person reads.
    public let zone: String?
    let ids = EntryIDs()

    public init(content: ShareContent, name: String?, title: String, generated: Int64, zone: String?) {
        self.content = content
        self.name = name
        self.title = title
        self.generated = generated
        self.zone = zone
    }

    var patientURL: String { ids.fullUrl(1) }

    /// One section of the document: a metric (or blood pressure, sleep, workouts), its lines of
    /// narrative and its entries.
    struct Section {
        var title: String
        var code: (system: String, code: String, display: String?)
        var lines: [String]
        var entries: [String]
    }

    /// The document Bundle's JSON.
    public func document(source: EventSource, today: CalendarDay) throws -> [UInt8] {
        var observations = JSONStream(reservingCapacity: 1 << 20, elements: true)
        var next = 2
        var sections = [Section]()
        func add(_ section: inout Section, _ write: (inout JSONStream) -> Void) {
            let url = ids.fullUrl(next)
            next += 1
            section.entries.append(url)
            observations.object { s in
                s.member("fullUrl", url)
                s.object("resource") { s in write(&s) }
            }
        }

        if !content.daily.isEmpty {
            let request = AnswerRequest(kind: .daily, since: content.range.since, until: content.range.until, metrics: content.daily)
            guard let daily = try request.answer(from: source, today: today) as? DailyAnswer else { throw ShareError.unexpectedAnswer("daily") }
            for metric in content.daily where !ShareRequest.bloodPressureParts.contains(metric) {
                var section = dailySection(metric, daily)
                for row in daily.values.indices {
                    guard let value = daily.series(of: metric)[row] else { continue }
                    let day = daily.range.since.adding(days: row)
                    add(&section) { s in dailyObservation(&s, metric: metric, day: day, value: value, row: daily.values[row], answer: daily) }
                }
                sections.append(section)
            }
            if content.bloodPressure {
                var section = bloodPressureSection(daily)
                let systolic = daily.series(of: "bloodPressureSystolic"), diastolic = daily.series(of: "bloodPressureDiastolic")
                for row in daily.values.indices where systolic[row] != nil || diastolic[row] != nil {
                    let day = daily.range.since.adding(days: row)
                    add(&section) { s in bloodPressureObservation(&s, day: day, row: daily.values[row], answer: daily) }
                }
                sections.append(section)
            }
        }
        if content.sleep {
            guard let sleep = try AnswerRequest(kind: .sleep, since: content.range.since, until: content.range.until)
                .answer(from: source, today: today) as? SleepAnswer else { throw ShareError.unexpectedAnswer("sleep") }
            var section = sleepSection(sleep)
            for night in sleep.nights { add(&section) { s in sleepObservation(&s, night) } }
            sections.append(section)
        }
        if content.workouts {
            var request = AnswerRequest(kind: .workouts, since: content.range.since, until: content.range.until)
            request.complete = true
            guard let answer = try request.answer(from: source, today: today) as? WorkoutsAnswer else { throw ShareError.unexpectedAnswer("workouts") }
            let workouts = answer.workouts
            var section = workoutSection(answer, workouts)
            for workout in workouts { add(&section) { s in workoutObservation(&s, workout) } }
            sections.append(section)
        }

        var bundle = JSONStream(reservingCapacity: observations.count + 64 << 10)
        bundle.object { s in
            s.member("resourceType", "Bundle")
            s.object("identifier") { s in
                s.member("system", "urn:ietf:rfc:3986")
                s.member("value", ids.fullUrl(0))
            }
            s.member("type", "document")
            s.member("timestamp", LocalClock.iso(generated))
            s.array("entry") { s in
                s.object { s in
                    s.member("fullUrl", ids.fullUrl(0))
                    s.object("resource") { s in composition(&s, sections) }
                }
                s.object { s in
                    s.member("fullUrl", patientURL)
                    s.object("resource") { s in patient(&s) }
                }
                s.elements(of: observations)
            }
        }
        return bundle.bytes
    }

    // MARK: Resources

    func patient(_ s: inout JSONStream) {
        s.member("resourceType", "Patient")
        s.object("text") { s in
            s.member("status", "generated")
            s.member("div", "<div xmlns=\"http://www.w3.org/1999/xhtml\"><p>" + JSONStream.xhtml(name ?? "The person who shared this link (no name given)")
                     + "</p></div>")
        }
        if let name {
            s.array("name") { s in s.object { s in s.member("text", name) } }
        }
    }

    func composition(_ s: inout JSONStream, _ sections: [Section]) {
        s.member("resourceType", "Composition")
        s.object("text") { s in
            s.member("status", "generated")
            s.member("div", narrative(sections))
        }
        s.member("status", "final")
        s.object("type") { s in
            s.array("coding") { s in s.coding(FHIRTerms.loinc, FHIRTerms.reportType.code, FHIRTerms.reportType.display) }
        }
        s.reference("subject", patientURL, display: name)
        s.member("date", LocalClock().shown(generated, in: zone))
        s.array("author") { s in s.object { s in s.member("reference", patientURL) } }
        s.member("title", title)
        // Composition.event.period: the days the document covers, including days with nothing
        // recorded at either end (R4, https://hl7.org/fhir/R4/composition-definitions.html#Composition.event.period).
        s.array("event") { s in
            s.object { s in
                s.object("period") { s in
                    s.member("start", content.range.since.description)
                    s.member("end", content.range.until.description)
                }
            }
        }
        s.array("section") { s in
            for section in sections {
                s.object { s in
                    s.member("title", section.title)
                    s.object("code") { s in s.array("coding") { s in s.coding(section.code.system, section.code.code, section.code.display) } }
                    s.object("text") { s in
                        s.member("status", "generated")
                        s.member("div", "<div xmlns=\"http://www.w3.org/1999/xhtml\">"
                                 + section.lines.map { "<p>" + JSONStream.xhtml($0) + "</p>" }.joined() + "</div>")
                    }
                    if section.entries.isEmpty {
                        s.object("emptyReason") { s in
                            s.array("coding") { s in s.coding("http://terminology.hl7.org/CodeSystem/list-empty-reason", "nilknown", "Nil Known") }
                        }
                    } else {
                        s.array("entry") { s in
                            for url in section.entries { s.object { s in s.member("reference", url) } }
                        }
                    }
                }
            }
        }
    }

    /// The document's own narrative: what it is, whose, which days, and each section's summary.
    func narrative(_ sections: [Section]) -> String {
        var html = "<div xmlns=\"http://www.w3.org/1999/xhtml\"><h1>" + JSONStream.xhtml(title) + "</h1>"
        html += "<p>" + JSONStream.xhtml((name.map { "For \($0). " } ?? "") + "Days \(content.range.since) to \(content.range.until), "
                                        + "as the person's own devices recorded them (Apple Health), shared from their Efferent archive on "
                                        + String(LocalClock().shown(generated, in: zone).prefix(10)) + ".") + "</p>"
        html += "<p>" + JSONStream.xhtml("Each day is a local day of the place it was recorded in. Readings are summarised per day "
                                          + "(the day's mean, lowest and highest); totals are the day's total.") + "</p>"
        for section in sections {
            html += "<h2>" + JSONStream.xhtml(section.title) + "</h2>"
            html += section.lines.map { "<p>" + JSONStream.xhtml($0) + "</p>" }.joined()
        }
        return html + "</div>"
    }

    func dailyObservation(_ s: inout JSONStream, metric: String, day: CalendarDay, value: Double, row: [Double?], answer: DailyAnswer) {
        let coding = FHIRTerms.coding(of: metric, unit: answer.units[metric])
        s.member("resourceType", "Observation")
        if let profile = coding.profile { s.object("meta") { s in s.array("profile") { s in s.string(FHIRTerms.profileBase + profile) } } }
        s.member("status", "final")
        if let category = coding.category { s.category(category) }
        s.key("code")
        s.metricCode(metric, coding)
        s.reference("subject", patientURL)
        s.member("effectiveDateTime", day.description)
        s.key("valueQuantity")
        s.quantity(value, coding)
        // A reading's day also has its lowest and highest reading, named as `efferent daily` names them.
        let extremes = answer.columns.enumerated().filter { $0.element.metric == metric && ($0.element.statistic == .min || $0.element.statistic == .max) }
        if !extremes.isEmpty {
            s.array("component") { s in
                for (index, column) in extremes {
                    guard let extreme = row[index] else { continue }
                    s.component(code: { s in
                        s.array("coding") { s in s.coding(FHIRTerms.dailyColumnSystem, column.name) }
                        s.member("text", MetricTitle.of(metric) + (column.statistic == .min ? ", lowest of the day" : ", highest of the day"))
                    }, value: extreme, ucum: coding.ucum, unit: coding.unit, shift: coding.decimalShift)
                }
            }
        }
    }

    func bloodPressureObservation(_ s: inout JSONStream, day: CalendarDay, row: [Double?], answer: DailyAnswer) {
        let coding = FHIRTerms.Coding(loinc: nil, loincAlso: nil, ucum: "mm[Hg]", unit: "mmHg", decimalShift: 0, category: nil, profile: nil)
        s.member("resourceType", "Observation")
        s.object("meta") { s in s.array("profile") { s in s.string(FHIRTerms.profileBase + "bp") } }
        s.member("status", "final")
        s.category("vital-signs")
        s.object("code") { s in
            s.array("coding") { s in s.coding(FHIRTerms.loinc, FHIRTerms.bloodPressurePanel.code, FHIRTerms.bloodPressurePanel.display) }
            s.member("text", "Blood pressure")
        }
        s.reference("subject", patientURL)
        s.member("effectiveDateTime", day.description)
        s.array("component") { s in
            for (metric, loinc) in [("bloodPressureSystolic", FHIRTerms.systolic), ("bloodPressureDiastolic", FHIRTerms.diastolic)] {
                for (index, column) in answer.columns.enumerated() where column.metric == metric {
                    guard let value = row[index] else { continue }
                    switch column.statistic {
                    case .mean, .sum:
                        s.component(code: { s in
                            s.array("coding") { s in
                                s.coding(FHIRTerms.loinc, loinc.code, loinc.display)
                                s.coding(FHIRTerms.metricSystem, metric)
                            }
                            s.member("text", loinc.display + " (mean of the day)")
                        }, value: value, ucum: coding.ucum, unit: coding.unit)
                    case .min, .max:
                        s.component(code: { s in
                            s.array("coding") { s in s.coding(FHIRTerms.dailyColumnSystem, column.name) }
                            s.member("text", loinc.display + (column.statistic == .min ? ", lowest of the day" : ", highest of the day"))
                        }, value: value, ucum: coding.ucum, unit: coding.unit)
                    }
                }
            }
        }
    }

    /// What an Observation over a span of time opens with: final, `activity`, its codes, the
    /// patient, and its period on the local clock of the place it happened in.
    func periodObservation(_ s: inout JSONStream, text: String, start: Int64, end: Int64, zone: String?,
                           codings: (inout JSONStream) -> Void) {
        let clock = LocalClock()
        s.member("resourceType", "Observation")
        s.member("status", "final")
        s.category("activity")
        s.object("code") { s in
            s.array("coding", codings)
            s.member("text", text)
        }
        s.reference("subject", patientURL)
        s.object("effectivePeriod") { s in
            s.member("start", clock.shown(start, in: zone))
            s.member("end", clock.shown(end, in: zone))
        }
    }

    func sleepObservation(_ s: inout JSONStream, _ night: SleepNight) {
        periodObservation(&s, text: "Sleep, the night of \(night.night)", start: night.start, end: night.end, zone: night.timeZone) { s in
            s.coding(FHIRTerms.loinc, FHIRTerms.sleepDuration.code, FHIRTerms.sleepDuration.display)
            s.coding(FHIRTerms.metricSystem, "sleep")
            s.coding(FHIRTerms.healthKitSystem, "HKCategoryTypeIdentifierSleepAnalysis")
        }
        if let asleep = night.asleepHours {
            s.key("valueQuantity")
            s.quantity(asleep, ucum: "h", unit: "h")
        } else {
            // Only "in bed" was recorded: no asleep figure, not 0 h (the one night rule), and FHIR
            // says why the value is absent.
            s.object("dataAbsentReason") { s in
                s.array("coding") { s in s.coding(FHIRTerms.dataAbsentReason, "unknown", "Unknown") }
                s.member("text", "only time in bed was recorded this night, no time asleep")
            }
        }
        s.array("component") { s in
            for stage in MetricCatalogue.sleepStages {
                guard let hours = night.stages[stage] else { continue }
                s.component(code: { s in
                    s.array("coding") { s in s.coding(FHIRTerms.sleepStageSystem, stage) }
                    s.member("text", Self.stageNames[stage] ?? stage)
                }, value: hours, ucum: "h", unit: "h")
            }
        }
    }

    static let stageNames = ["inBed": "In bed", "awake": "Awake", "asleepUnspecified": "Asleep (stage not recorded)", "asleepCore": "Core sleep",
                             "asleepDeep": "Deep sleep", "asleepREM": "REM sleep", "unknown": "Unknown stage"]

    func workoutObservation(_ s: inout JSONStream, _ workout: WorkoutsAnswer.Workout) {
        periodObservation(&s, text: "Workout", start: workout.start, end: workout.end, zone: workout.timeZone) { s in
            s.coding(FHIRTerms.loinc, FHIRTerms.exerciseActivity.code, FHIRTerms.exerciseActivity.display)
            s.coding(FHIRTerms.metricSystem, "workout")
        }
        s.object("valueCodeableConcept") { s in
            s.array("coding") { s in
                s.coding(FHIRTerms.workoutSystem, workout.activity)
                if let kind = FHIRTerms.workoutActivity(workout.activity) { s.coding(FHIRTerms.healthKitSystem, kind) }
            }
            s.member("text", MetricTitle.of(workout.activity))
        }
        if let source = workout.source { s.object("device") { s in s.member("display", source) } }
        s.array("component") { s in
            s.component(code: { s in
                s.array("coding") { s in
                    s.coding(FHIRTerms.loinc, FHIRTerms.exerciseDuration.code, FHIRTerms.exerciseDuration.display)
                    s.coding(FHIRTerms.workoutSystem, "minutes")
                }
            }, value: workout.minutes, ucum: "min", unit: "min")
            let figures: [(String, Double?, String?, String, (String, String)?)] = [
                ("activeEnergyKcal", workout.activeEnergyKcal, "kcal", "kcal", FHIRTerms.caloriesBurned),
                ("distanceMeters", workout.distanceMeters, "m", "m", nil),
                ("averageHeartRate", workout.averageHeartRate, "/min", "beats/minute", nil),
                ("maximumHeartRate", workout.maximumHeartRate, "/min", "beats/minute", nil),
            ]
            for (column, value, ucum, unit, loinc) in figures {
                guard let value else { continue }
                s.component(code: { s in
                    s.array("coding") { s in
                        if let loinc { s.coding(FHIRTerms.loinc, loinc.0, loinc.1) }
                        s.coding(FHIRTerms.workoutSystem, column)
                    }
                    s.member("text", Self.workoutColumnNames[column] ?? column)
                }, value: Distribution.round3(value), ucum: ucum, unit: unit)
            }
        }
    }

    static let workoutColumnNames = ["activeEnergyKcal": "Active energy", "distanceMeters": "Distance", "averageHeartRate": "Average heart rate",
                                     "maximumHeartRate": "Highest heart rate"]
}
