import Testing
@Test func placeholder_LanChatCryptoTests() {}
