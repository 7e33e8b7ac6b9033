// Placeholder until the module lands.
public enum LanChatCLIModule {}
