/// What a zip re-made on a Mac carries besides the export: a `.DS_Store` and `__MACOSX/`
/// AppleDouble files (the apple-health-parser sample's zip has exactly these).
enum MacArchiveLitter {
    /// A `.DS_Store` of the usual size: the "Bud1" buddy-allocator magic, then zeros.
    static var dsStore: [UInt8] {
        var bytes: [UInt8] = [0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]
        bytes += [UInt8](repeating: 0, count: 6148 - bytes.count)
        return bytes
    }

    /// An AppleDouble header (magic 0x00051607, version 2) with no entries.
    static var appleDouble: [UInt8] {
        var bytes: [UInt8] = [0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00]
        bytes += Array("Mac OS X        ".utf8)
        bytes += [0, 0]
        bytes += [UInt8](repeating: 0, count: 120 - bytes.count)
        return bytes
    }

    /// A small HL7 CDA `export_cda.xml` (§1.7): the header of a "Health Data Export" document.
    static var clinicalDocument: [UInt8] {
        Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <ClinicalDocument xmlns="urn:hl7-org:v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
         <realmCode code="US"/>
         <typeId root="2.16.840.1.113883.1.3" extension="POCD_HD000040"/>
         <templateId root="2.16.840.1.113883.10.20.22.1.2"/>
         <id extension="Health Export" root="1.1.1.1.1.1.1.1.1"/>
         <code codeSystem="2.16.840.1.113883.6.1" codeSystemName="LOINC" code="34109-9" displayName="Note"/>
         <title>Health Data Export</title>
         <effectiveTime value="20250615093000+0200"/>
         <confidentialityCode code="N" codeSystem="2.16.840.1.113883.5.25"/>
         <recordTarget>
          <patientRole>
           <patient>
            <administrativeGenderCode code="F" codeSystem="2.16.840.1.113883.5.1"/>
            <birthTime value="19880314"/>
           </patient>
          </patientRole>
         </recordTarget>
        </ClinicalDocument>

        """.utf8)
    }
}
