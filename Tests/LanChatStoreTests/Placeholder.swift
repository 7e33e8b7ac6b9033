import Testing
@Test func placeholder_LanChatStoreTests() {}
