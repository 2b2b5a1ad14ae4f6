/// The oddities of real Apple Health exports (apple-health-export.md §1.8) the generator can
/// reproduce, each on its own switch. `.all` is the "quirky" profile; `.none` a clean export.
public struct ExportQuirks: Sendable, Equatable {
    /// Which internal DTD opens the XML (§1.2).
    public enum Doctype: String, Sendable, Equatable, CaseIterable {
        case none
        /// The version 13 DTD, well formed.
        case version13 = "13"
        /// The iOS 16 DTD with the `>` missing after `ATTLIST VisionPrescription` (§1.2).
        case malformedVersion12 = "12-malformed"
    }

    public var doctype: Doctype
    /// A `\u{0B}` (illegal in XML 1.0) inside one metadata value (jameno PR #3).
    public var controlCharacter: Bool
    /// The Watch's name written with `&#8217;` (the iPhone's always carries a raw U+2019).
    public var characterReferenceInSourceName: Bool
    /// VO2max records in `mL/min&#183;kg` and METs metadata in `kcal/hr&#183;kg`.
    public var characterReferenceInUnit: Bool
    /// The main XML named `eksport.xml` (Norwegian) inside the zip (§1.1).
    public var localizedFileName: Bool
    /// `__MACOSX/` AppleDouble entries and a `.DS_Store`, as a zip re-made on a Mac has.
    public var macArchiveLitter: Bool
    /// An `export_cda.xml` beside the main XML.
    public var clinicalDocument: Bool
    /// Recent workouts list their metadata keys twice (real iOS 26 fragments).
    public var duplicateMetadataKeys: Bool
    /// One body-mass record dated 2030-01-06 (rgosdin sample: phone clock set forward).
    public var futureDatedRecord: Bool
    /// Some records have their attributes split over several lines.
    public var multiLineAttributes: Bool

    public init(doctype: Doctype, controlCharacter: Bool, characterReferenceInSourceName: Bool,
                characterReferenceInUnit: Bool, localizedFileName: Bool, macArchiveLitter: Bool,
                clinicalDocument: Bool, duplicateMetadataKeys: Bool, futureDatedRecord: Bool,
                multiLineAttributes: Bool) {
        self.doctype = doctype
        self.controlCharacter = controlCharacter
        self.characterReferenceInSourceName = characterReferenceInSourceName
        self.characterReferenceInUnit = characterReferenceInUnit
        self.localizedFileName = localizedFileName
        self.macArchiveLitter = macArchiveLitter
        self.clinicalDocument = clinicalDocument
        self.duplicateMetadataKeys = duplicateMetadataKeys
        self.futureDatedRecord = futureDatedRecord
        self.multiLineAttributes = multiLineAttributes
    }

    /// Every quirk on, with the well-formed version 13 DTD.
    public static let all = ExportQuirks(doctype: .version13, controlCharacter: true, characterReferenceInSourceName: true,
                                         characterReferenceInUnit: true, localizedFileName: true, macArchiveLitter: true,
                                         clinicalDocument: true, duplicateMetadataKeys: true, futureDatedRecord: true,
                                         multiLineAttributes: true)

    /// A clean export: no DTD, plain names, `export.xml`, nothing extra in the zip.
    public static let none = ExportQuirks(doctype: .none, controlCharacter: false, characterReferenceInSourceName: false,
                                          characterReferenceInUnit: false, localizedFileName: false, macArchiveLitter: false,
                                          clinicalDocument: false, duplicateMetadataKeys: false, futureDatedRecord: false,
                                          multiLineAttributes: false)
}
