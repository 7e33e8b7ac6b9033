import Testing
@Test func placeholder_LanChatCLITests() {}
