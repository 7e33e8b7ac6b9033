// libsodium 1.0.18 (Debian 12 libsodium-dev). Imported only by LanChatCrypto.
#include <sodium.h>
