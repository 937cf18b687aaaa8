/// Where a dialog goes after a step handled an answer.
public enum DialogTransition: Hashable, Sendable {
    /// Ask the next declared step's question; after the last step, finish.
    case next
    /// Ask the question of the step named so (an earlier one, to change an answer, or a later one, to skip).
    case goTo(String)
    /// Stay on this step: reply with the text (say what was wrong and what is wanted), or with nil, ask the
    /// step's question again. Changes the step made to the values are kept.
    case retry(String?)
    /// End the dialog and run its `onFinish`.
    case finish
}
