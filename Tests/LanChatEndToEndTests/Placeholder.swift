import Testing

@Test func placeholder_LanChatEndToEndTests() {}
