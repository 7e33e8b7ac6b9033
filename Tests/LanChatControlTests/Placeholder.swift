import Testing
@Test func placeholder_LanChatControlTests() {}
