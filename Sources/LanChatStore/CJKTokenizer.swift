import GRDB
import LanChatCore

/// The FTS5 tokenizer of `messages_fts_cjk` (schema v14): the tokens of the tokenizer it
/// wraps (the arguments after its name: `unicode61 remove_diacritics 2`, from v15 with
/// `categories` letting symbols through for the sake of emoji), each CJK character and each
/// emoji cut out as a token of its own (`CJKText.split`). FTS5 tokenizes a query's terms with
/// it too, so the phrase "東京" is 東 followed by 京: the two characters in a row, anywhere.
///
/// Every connection that may open the table registers it (`register(on:)`): the store's, the
/// repair's and the inspection at start. A connection without it cannot read or write the
/// table (SQLite answers "no such tokenizer"); nothing else of the store needs it.
final class CJKTokenizer: FTS5WrapperTokenizer {
    static let name = "lanchat_cjk"

    let wrappedTokenizer: any FTS5Tokenizer

    init(db: Database, arguments: [String]) throws {
        wrappedTokenizer = try db.makeTokenizer(
            FTS5TokenizerDescriptor(
                components: arguments.isEmpty ? ["unicode61", "remove_diacritics", "2"] : arguments)
        )
    }

    func accept(
        token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
        tokenCallback: FTS5WrapperTokenCallback
    ) throws {
        for piece in CJKText.split(token) {
            try tokenCallback(piece, flags)
        }
    }

    /// Makes the tokenizer known to `db`'s connection.
    static func register(on db: Database) {
        db.add(tokenizer: CJKTokenizer.self)
    }

    /// A configuration whose connections know the tokenizer.
    static func configuration(_ base: Configuration = Configuration()) -> Configuration {
        var configuration = base
        configuration.prepareDatabase { db in register(on: db) }
        return configuration
    }
}
