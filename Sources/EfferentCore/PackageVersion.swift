/// The version of this package, which every program prints (`--version`) and the MCP server
/// names itself by; `scripts/package` reads it here for the Debian package's upstream version.
public enum PackageVersion {
    public static let text = "0.1.0"
}
