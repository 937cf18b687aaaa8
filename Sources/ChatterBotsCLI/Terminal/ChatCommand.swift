/// What a line typed into the terminal client asks for: a slash command, or text to send.
public enum ChatCommand: Sendable, Hashable {
    /// `/list`: the conversations, numbered, with unread counts.
    case list
    /// `/open <n|name>`: open a conversation by its number in the last list, or by name.
    case open(ConversationReference)
    /// `/dm <username>`: open (or start) the direct conversation with a friend.
    case directMessage(username: String)
    /// `/friends`: friends with their presence, and pending friend requests.
    case friends
    /// `/accept <n>`: accept the friend request numbered `n` by `/friends`.
    case accept(requestNumber: Int)
    /// `/decline <n>`: decline the friend request numbered `n` by `/friends`.
    case decline(requestNumber: Int)
    /// `/react <emoji>`: react to the newest message someone else wrote in the open conversation.
    case react(emoji: String)
    /// `/help`.
    case help
    /// `/quit` (also `/exit`, or the end of input).
    case quit
    /// Text for the open conversation. A line starting with `//` sends the text after the first slash.
    case say(String)
    /// An empty or blank line: nothing to do.
    case nothing

    /// How `/open` names a conversation.
    public enum ConversationReference: Sendable, Hashable {
        /// Its number in the last `/list` (from 1).
        case number(Int)
        /// A friend's username for a direct conversation, or a group's title.
        case name(String)
    }

    /// Reads one typed line. Surrounding whitespace of commands is ignored; text to send is kept as typed.
    ///
    /// - Throws: `ChatCommandError` for an unknown command or a missing or malformed argument.
    public init(parsing line: String) throws(ChatCommandError) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            self = .nothing
            return
        }
        guard trimmed.hasPrefix("/") else {
            self = .say(line)
            return
        }
        if trimmed.hasPrefix("//") {
            self = .say(String(trimmed.dropFirst()))
            return
        }
        let words = trimmed.dropFirst().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        let name = words.first.map { String($0).lowercased() } ?? ""
        let argument = words.count > 1 ? String(words[1]).trimmingCharacters(in: .whitespaces) : ""
        switch name {
        case "list", "ls":
            self = .list
        case "open", "o":
            guard !argument.isEmpty else { throw .missingArgument(command: "/open", expected: "a number from /list or a name") }
            if let number = Int(argument) {
                guard number >= 1 else { throw .invalidNumber(command: "/open", argument) }
                self = .open(.number(number))
            } else {
                self = .open(.name(argument))
            }
        case "dm", "msg":
            guard !argument.isEmpty else { throw .missingArgument(command: "/dm", expected: "a friend's username") }
            self = .directMessage(username: argument.hasPrefix("@") ? String(argument.dropFirst()) : argument)
        case "friends", "f":
            self = .friends
        case "accept":
            guard !argument.isEmpty else { throw .missingArgument(command: "/accept", expected: "a request number from /friends") }
            guard let number = Int(argument), number >= 1 else { throw .invalidNumber(command: "/accept", argument) }
            self = .accept(requestNumber: number)
        case "react":
            guard !argument.isEmpty, !argument.contains(" ") else {
                throw .missingArgument(command: "/react", expected: "one emoji, e.g. /react 👍")
            }
            self = .react(emoji: argument)
        case "decline":
            guard !argument.isEmpty else { throw .missingArgument(command: "/decline", expected: "a request number from /friends") }
            guard let number = Int(argument), number >= 1 else { throw .invalidNumber(command: "/decline", argument) }
            self = .decline(requestNumber: number)
        case "help", "h", "?":
            self = .help
        case "quit", "exit", "q":
            self = .quit
        default:
            throw .unknownCommand("/" + name)
        }
    }

    /// The commands and what they do, as `/help` prints them.
    public static let helpText: [String] = [
        "/list            conversations, numbered, with unread counts",
        "/open <n|name>   open a conversation (number from /list, friend's username, or group title)",
        "/dm <username>   open or start the direct conversation with a friend",
        "/friends         friends, who is online, and pending friend requests",
        "/accept <n>      accept friend request n of /friends",
        "/decline <n>     decline friend request n of /friends",
        "/react <emoji>   react to the newest message someone else wrote here",
        "/help            this list",
        "/quit            leave (Ctrl-D too)",
        "Any other line is sent to the open conversation (start it with // to send a line beginning with /).",
    ]
}
