import LanChatCore
import Testing

@Suite("Array.sorted(byKey:by:)")
struct SortedByKeyTests {
    @Test func ordersByTheKeyAndKeepsEqualKeysInTheirOrder() {
        let items = [(3, "a"), (1, "b"), (3, "c"), (2, "d"), (1, "e")]
        let sorted = items.sorted(byKey: { $0.0 }, by: >)
        #expect(sorted.map(\.1) == ["a", "c", "d", "b", "e"])
    }

    @Test func agreesWithSortingTheElementsThemselves() {
        var generator = SystemRandomNumberGenerator()
        let items = (0..<500).map { index in (UInt8.random(in: 0...20, using: &generator), index) }
        let byKey = items.sorted(byKey: { $0.0 }, by: <)
        let direct = items.sorted { $0.0 < $1.0 }
        #expect(byKey.map(\.1) == direct.map(\.1))
    }
}
