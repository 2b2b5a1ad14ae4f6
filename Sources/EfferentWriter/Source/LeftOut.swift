/// Something an input holds that did not become a record, named so the import summary can list
/// it with its count (decision A.9: nothing goes into a silent bucket).
public struct LeftOut: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The decision leaves it out (Health Records, characteristics, …); the text says why.
        case onPurpose(String)
        /// It could not be read as the protocol needs it; the text says what was wrong.
        case unreadable(String)
    }

    /// The element or HealthKit type (`ClinicalRecord`, `HKQuantityTypeIdentifierBloodGlucose`).
    public let what: String
    public let reason: Reason

    public init(_ what: String, _ reason: Reason) {
        self.what = what
        self.reason = reason
    }

    public var isOnPurpose: Bool { if case .onPurpose = reason { true } else { false } }

    public var description: String {
        switch reason {
        case let .onPurpose(why): "\(what) (\(why))"
        case let .unreadable(problem): "\(what) (\(problem))"
        }
    }

    /// Health Records: FHIR resources and the CDA document, kept out of the archive on purpose.
    public static let clinicalRecord = LeftOut("ClinicalRecord", .onPurpose("Health Records stay in Health"))
    public static let clinicalDocument = LeftOut("export_cda.xml", .onPurpose("Health Records stay in Health"))
    public static let visionPrescription = LeftOut("VisionPrescription", .onPurpose("a prescription document, not a measurement"))
    public static let characteristics = LeftOut("Me", .onPurpose("date of birth, sex, blood type and skin type are not time series"))
}

extension ExportSink {
    /// What is left out is ignored unless the sink implements this.
    public func leftOut(_ what: LeftOut) throws {}
}
