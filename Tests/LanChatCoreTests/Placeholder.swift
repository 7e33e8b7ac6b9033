import Testing
@Test func placeholder_LanChatCoreTests() {}
