/// The control API version carried in every response (`apiVersion`). Bumped only when a
/// method or field is removed or changes meaning; adding methods and fields does not bump it.
public enum ControlAPI {
    public static let version = 1
    /// A request line longer than this is answered with an error and discarded (PRODUCT.md §5).
    public static let maxRequestBytes = 1 << 20
}
