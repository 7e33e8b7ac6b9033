import LanChatCLI

await LanChatCLI.main()
