import Foundation

/// Replays inputs through a fuzz body when a target is built without libFuzzer, so a crash file
/// from `scripts/fuzz` can be reproduced under a debugger or in an ordinary build.
public enum FuzzReplay {
    public static func run(_ body: ([UInt8]) -> Void) {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) FILE...  (replays each file through the target)\n".utf8))
            exit(64)
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(66)
            }
            body(Array(data))
            print("\(path): ok")
        }
    }
}
