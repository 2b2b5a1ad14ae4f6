import EfferentCore
@testable import EfferentDashboard
import Foundation
import Testing

/// The page's files are in the binary as they are in the repository, and they ask for nothing
/// from any other address: no font, script, style or image from elsewhere.
@Suite struct DashboardAssetTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/EfferentDashboard/Assets/web")

    @Test func theEmbeddedFilesAreTheRepositorysFiles() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(names == DashboardAssets.sources.keys.sorted())
        for name in names {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            #expect(DashboardAssets.sources[name] == text, "\(name) changed: run scripts/embed-dashboard")
        }
    }

    @Test func nothingIsLoadedFromAnotherAddress() throws {
        for (name, text) in DashboardAssets.sources where name != "openapi.json" {
            let addresses = text.components(separatedBy: CharacterSet(charactersIn: "\"'( \n"))
                .filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") || ($0.hasPrefix("//") && $0.count > 2) }
            #expect(addresses.allSatisfy { $0.hasPrefix("http://www.w3.org/2000/svg") }, "\(name) refers to \(addresses)")
            #expect(!text.contains("@import") && !text.contains("fonts.googleapis") && !text.contains("innerHTML"), "\(name)")
        }
        let shell = DashboardAssets.sources["index.html"] ?? ""
        #expect(!shell.contains("<script>") && !shell.contains("style="), "no inline script or style: the CSP would refuse them")
        #expect(try JSONParser.parse(DashboardAssets.openAPI)["openapi"]?.stringValue == "3.1.0")
    }
}
