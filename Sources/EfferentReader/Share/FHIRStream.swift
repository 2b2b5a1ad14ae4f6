import EfferentCore

/// The pieces of FHIR R4 JSON a share writes (https://hl7.org/fhir/R4/datatypes.html), on a `JSONStream`.
extension JSONStream {
    /// A `Coding` (system, code, display).
    mutating func coding(_ system: String, _ code: String, _ display: String? = nil) {
        object { s in
            s.member("system", system)
            s.member("code", code)
            if let display { s.member("display", display) }
        }
    }

    /// The `code` of a metric's Observation: its LOINC codes when it has them, then Efferent's
    /// metric name and HealthKit's identifier, and the name a person reads.
    mutating func metricCode(_ metric: String, _ coding: FHIRTerms.Coding) {
        object { s in
            s.array("coding") { s in
                if let loinc = coding.loinc { s.coding(FHIRTerms.loinc, loinc.code, loinc.display) }
                if let also = coding.loincAlso { s.coding(FHIRTerms.loinc, also.code, also.display) }
                s.coding(FHIRTerms.metricSystem, metric)
                if let identifier = FHIRTerms.healthKitIdentifier(of: metric) { s.coding(FHIRTerms.healthKitSystem, identifier) }
            }
            s.member("text", MetricTitle.of(metric))
        }
    }

    /// `category`: one coding of FHIR's observation-category.
    mutating func category(_ code: String) {
        key("category")
        array { s in
            s.object { s in
                s.array("coding") { s in
                    s.coding(FHIRTerms.category, code, Self.categoryDisplay[code])
                }
            }
        }
    }

    static let categoryDisplay = ["vital-signs": "Vital Signs", "laboratory": "Laboratory", "activity": "Activity"]

    /// A `Quantity` in the metric's UCUM unit, its value the CLI's number with the point moved as the unit asks.
    mutating func quantity(_ value: Double, _ coding: FHIRTerms.Coding) {
        quantity(value, ucum: coding.ucum, unit: coding.unit, shift: coding.decimalShift)
    }

    mutating func quantity(_ value: Double, ucum: String?, unit: String, shift: Int = 0) {
        object { s in
            s.member("value", number: DecimalShift.text(value, places: shift))
            if !unit.isEmpty { s.member("unit", unit) }
            if let ucum {
                s.member("system", FHIRTerms.ucum)
                s.member("code", ucum)
            }
        }
    }

    /// A `Reference` to an entry of this Bundle, by its fullUrl.
    mutating func reference(_ name: StaticString, _ fullUrl: String, display: String? = nil) {
        object(name) { s in
            s.member("reference", fullUrl)
            if let display { s.member("display", display) }
        }
    }

    /// A component: a code and a quantity.
    mutating func component(code: (inout JSONStream) -> Void, value: Double, ucum: String?, unit: String, shift: Int = 0) {
        object { s in
            s.object("code") { s in code(&s) }
            s.key("valueQuantity")
            s.quantity(value, ucum: ucum, unit: unit, shift: shift)
        }
    }

    /// Text as XHTML character data (the narrative's div is XHTML): the chart renderer's XML escape.
    static func xhtml(_ text: String) -> String { SVGText.escape(text) }
}

/// Entry addresses within one sealed Bundle: `urn:uuid:` UUIDs (RFC 4122, version 4 bits set)
/// that share random leading bytes and count up in their last six, so a share's thousands of
/// references cost little once deflated and every seal has its own.
struct EntryIDs: Sendable {
    private let prefix: String

    init() {
        var bytes = EfferentCore.Base64URL.decode(LinkID.make().rawValue) ?? []
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Hex.encode(Array(bytes.prefix(10)))
        prefix = "urn:uuid:" + hex.prefix(8) + "-" + hex.dropFirst(8).prefix(4) + "-" + hex.dropFirst(12).prefix(4) + "-" + hex.dropFirst(16).prefix(4) + "-"
    }

    func fullUrl(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return prefix + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }
}
