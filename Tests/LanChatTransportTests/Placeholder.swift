import Testing
@Test func placeholder_LanChatTransportTests() {}
