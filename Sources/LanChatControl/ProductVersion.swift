/// The product version, shown by `lanchat --version`, `lanchatd --version` and reported by
/// the daemon in `status` (`version`). Distinct from `ControlAPI.version`, which only changes
/// when the control API breaks compatibility.
public enum LanChatVersion {
    public static let current = "0.1.0"
}
