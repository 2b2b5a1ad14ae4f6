/// One record before it is written: an interval, a fixed-point value in its stream's canonical
/// unit (see `RecordStream.scale`) and a small stream-specific variant.
struct Sample: Sendable {
    var start: Int64
    var end: Int64
    var value: Int64
    /// Heart rate: motion context; energy: 1 = written in kJ; body mass: 1 = written in lb;
    /// sleep: the stage's index in `SleepStage.allCases`.
    var variant: UInt8 = 0
}
