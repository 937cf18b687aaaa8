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
    /// `/accept <n|username>`: accept the friend request numbered `n` by `/friends`, or the one from `username`.
    case accept(FriendRequestReference)
    /// `/decline <n|username>`: decline the friend request numbered `n` by `/friends`, or the one from `username`.
    case decline(FriendRequestReference)
    /// `/react <emoji>`: react to the newest message someone else wrote in the open conversation.
    case react(emoji: String)
    /// `/cancel`: take back the messages the service refused for now (not sent, waiting to go again): they are never
    /// sent.
    case cancel
    /// `/help`.
    case help
    /// `/quit` (also `/exit`, or the end of input).
    case quit
    /// Text for the open conversation. A line starting with `//` sends the text after the first slash.
    case say(String)
    /// An empty or blank line: nothing to do.
    case nothing

    /// How `/accept` and `/decline` name a friend request.
    public enum FriendRequestReference: Sendable, Hashable {
        /// Its number in `/friends` (from 1); numbers move as requests are answered.
        case number(Int)
        /// The username of who sent it, which stays right however the list changes.
        case username(String)
    }

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
            self = .accept(try Self.friendRequest(argument, of: "/accept"))
        case "react":
            guard !argument.isEmpty, !argument.contains(" ") else {
                throw .missingArgument(command: "/react", expected: "one emoji, e.g. /react 👍")
            }
            self = .react(emoji: argument)
        case "decline":
            self = .decline(try Self.friendRequest(argument, of: "/decline"))
        case "cancel":
            self = .cancel
        case "help", "h", "?":
            self = .help
        case "quit", "exit", "q":
            self = .quit
        default:
            throw .unknownCommand("/" + name)
        }
    }

    /// The request `argument` names: a number from 1, or a username (an `@` before it is dropped).
    private static func friendRequest(_ argument: String, of command: String) throws(ChatCommandError) -> FriendRequestReference {
        guard !argument.isEmpty else {
            throw .missingArgument(command: command, expected: "a request number from /friends, or who sent it")
        }
        if let number = Int(argument) {
            guard number >= 1 else { throw .invalidNumber(command: command, argument) }
            return .number(number)
        }
        return .username(argument.hasPrefix("@") ? String(argument.dropFirst()) : argument)
    }

    /// The commands and what they do, as `/help` prints them.
    public static let helpText: [String] = [
        "/list            conversations, numbered, with unread counts",
        "/open <n|name>   open a conversation (number from /list, friend's username, or group title)",
        "/dm <username>   open or start the direct conversation with a friend",
        "/friends         friends, who is online, and pending friend requests",
        "/accept <n|name> accept friend request n of /friends, or the one from a username",
        "/decline <n|name> decline friend request n of /friends, or the one from a username",
        "/react <emoji>   react to the newest message someone else wrote here",
        "/cancel          take back a message the service refused for now (\"… Not sent yet\"): it is never sent",
        "/help            this list",
        "/quit            leave (Ctrl-D too)",
        "Any other line is sent to the open conversation (start it with // to send a line beginning with /).",
    ]
}
