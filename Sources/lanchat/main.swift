import LanChatCLI

LanChatCLI.prepareProcess()
await LanChatCLI.main()
