import Testing
@Test func placeholder_LanChatDiscoveryTests() {}
