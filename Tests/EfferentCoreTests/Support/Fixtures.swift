import Foundation
import EfferentCrypto
@testable import EfferentCore

/// Reads a file from the test bundle's `Fixtures` folder.
enum Fixtures {
    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }
}

extension Array where Element == UInt8 {
    /// Test vectors are hex; a malformed one is a broken test, so it traps.
    init(hex: String) { self = Hex.decode(hex)! }
    var hex: String { Hex.encode(self) }
}

extension SecretBytes {
    /// The vectors print secrets as hex; only tests reveal them to compare.
    var hex: String { Hex.encode(revealed()) }
}
