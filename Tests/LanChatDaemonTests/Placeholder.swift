import Testing

@Test func placeholder_LanChatDaemonTests() {}
