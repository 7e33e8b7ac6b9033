public enum LanChatClientModule {}
