/// An ECG recording as the Health app exports it (`electrocardiograms/ecg_YYYY-MM-DD.csv`,
/// apple-health-export.md §1.7): key/value header lines in English, then one voltage a line.
enum ECGFile {
    /// `electrocardiograms/ecg_2025-03-02.csv`, named after the recording's local day.
    static func path(_ plan: DayPlan) -> String {
        var text = TextBuffer()
        text.append("electrocardiograms/ecg_")
        text.appendDate(plan.date)
        text.append(".csv")
        return String(decoding: text.bytes, as: UTF8.self)
    }

    static func bytes(start: Int64, voltages: [Int64], offset: Int) -> [UInt8] {
        var out = TextBuffer(capacity: voltages.count * 10 + 512)
        out.append("Name,Camille Martin\nDate of Birth,\"Mar 14, 1988\"\nRecorded Date,")
        out.appendAppleDate(start, offset: offset)
        out.append("\nClassification,Sinus Rhythm\nSymptoms,\nSoftware Version,2.0\nDevice,\"Watch6,7\"\nSample Rate,512 hertz\n\nLead,Lead I\nUnit,µV\n\n")
        for voltage in voltages {
            out.appendDecimal(voltage, scale: 3)
            out.append(byte: 0x0A)
        }
        return out.bytes
    }
}
