#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace veetbot {

struct ElementFacts;
class ActRequest;

// What a browser action may do beyond ordinary browsing: a closed vocabulary. Routine, Unknown
// and Unreadable are the unnamed values; every other value is a named consequence, which no
// standing grant covers (a task grant may still cover Submission and StateChange).
enum class BrowserActionConsequence
{
    Routine, // every word read is ordinary navigation (next, search, show more, ...)
    Unknown, // nothing named a consequence, and not every word read is routine
    Payment,
    Purchase,
    AccountRecovery,
    CredentialChange, // a password or multi-factor change
    PermissionChange,
    LegalAcceptance,
    Publication,
    Destructive,
    FileTransfer,
    SecuritySettings,
    SignOut,     // ends the owner's session on the website (sign out, log out, log off)
    StateChange, // changes something it does not name: undo, revert, move, rename, protect,
                 // block, archive, or a target that carries a token or an operation
    Submission,  // sends the owner's input: a POST form, save, submit, confirm, apply, agree
    Unreadable   // unnamed, but written in a script no vocabulary covers: never routine, and
                 // never covered by ordinary interaction or a standing grant
};

inline constexpr BrowserActionConsequence kAllConsequences[] = {
    BrowserActionConsequence::Routine,          BrowserActionConsequence::Unknown,
    BrowserActionConsequence::Payment,          BrowserActionConsequence::Purchase,
    BrowserActionConsequence::AccountRecovery,  BrowserActionConsequence::CredentialChange,
    BrowserActionConsequence::PermissionChange, BrowserActionConsequence::LegalAcceptance,
    BrowserActionConsequence::Publication,      BrowserActionConsequence::Destructive,
    BrowserActionConsequence::FileTransfer,     BrowserActionConsequence::SecuritySettings,
    BrowserActionConsequence::SignOut,          BrowserActionConsequence::StateChange,
    BrowserActionConsequence::Submission,       BrowserActionConsequence::Unreadable,
};

// The named consequences, most decisive first: when several are read (from one text or from
// several sources), the first of this order is the result. Money moves before accounts change
// hands, and those before what can be undone or only shown.
inline constexpr BrowserActionConsequence kConsequencePriority[] = {
    BrowserActionConsequence::Payment,          BrowserActionConsequence::Purchase,
    BrowserActionConsequence::AccountRecovery,  BrowserActionConsequence::CredentialChange,
    BrowserActionConsequence::SecuritySettings, BrowserActionConsequence::PermissionChange,
    BrowserActionConsequence::Destructive,      BrowserActionConsequence::FileTransfer,
    BrowserActionConsequence::LegalAcceptance,  BrowserActionConsequence::Publication,
    BrowserActionConsequence::SignOut,          BrowserActionConsequence::StateChange,
    BrowserActionConsequence::Submission,
};

// "payment", "credential_change", ..., "routine", "unknown"; stable public strings.
QString consequenceString(BrowserActionConsequence consequence);
// Exactly those strings (case-sensitive); anything else is nullopt.
std::optional<BrowserActionConsequence> consequenceFromString(QStringView text);
// Every value but Routine, Unknown and Unreadable.
bool isNamedConsequence(BrowserActionConsequence consequence);
// The named consequences a task grant may still cover inside its scope (its writes are the
// point): Submission and StateChange. Ordinary interaction and standing grants cover none.
bool isTaskGrantableConsequence(BrowserActionConsequence consequence);

// Which of the element's facts decided a classification. For audits: a source kind, never the
// text it read.
enum class ConsequenceSource
{
    None,            // nothing named a consequence
    ActionKind,      // the action itself (a scroll)
    Role,            // the element's role
    AccessibleName,  // the observation's accessible name
    AriaLabel,       // label sources (ElementFacts::labels) ...
    Title,           //
    Placeholder,     //
    AssociatedLabel, //
    LabelledBy,      //
    AlternativeText, //
    ButtonValue,     //
    VisibleText,     // ... and the element's visible text
    DialogName,      // the enclosing dialog's name
    SelectedOption,  // the option a select shows
    ChosenOption,    // the option a select action asks for
    FieldKind,       // a credential, one-time-code, payment or file field
    TargetPath,      // a path segment of the navigation target
    TargetDownload,  // a link that downloads its target
    TargetMethod,    // a submit button of a form that posts
    TargetQuery      // the target's query (a token, an operation, a sign-out)
};
QString consequenceSourceString(ConsequenceSource source);

// How a text was read when it named a consequence.
enum class TextReading
{
    None,           // not a text (field kind, a target's download flag, the action kind)
    Written,        // in the order it is stored
    Displayed,      // in the order the bidirectional algorithm shows it
    Folded,         // as written, lookalike letters and digits read as Latin letters
    DisplayedFolded // as displayed, folded
};
QString textReadingString(TextReading reading);

struct ActionClassification
{
    BrowserActionConsequence consequence = BrowserActionConsequence::Unknown;
    ConsequenceSource source = ConsequenceSource::None;
    TextReading reading = TextReading::None;
    friend bool operator==(const ActionClassification &, const ActionClassification &) = default;
};

// The one shared, deny-biased classifier. Pure: it reads its arguments only.
//
// A scroll is Routine (it moves the view, whatever the element says). Otherwise every source
// is read: the role, the accessible name, every label source, the visible text, the dialog
// name, the selected option and a select action's chosen option, each in every reading
// (ConsequenceText); the field kind (credential and one-time-code fields read as a credential
// change, payment fields as payment, file inputs as file transfer); the navigation target's
// path consequence and its download flag. If any of them names a consequence, the result is
// the first of kConsequencePriority named, attributed to the first source (in the order of
// ConsequenceSource) and reading that named it. Routine needs all of: a routine role, a field
// kind that is not a special field, a target (if any) with no sensitive segment, at least one
// non-empty label source, every label source carried whole, and every word of every reading of
// every non-empty text in the routine vocabulary. When nothing named a consequence and a text
// read holds a letter of a script no vocabulary covers, the result is Unreadable. Everything
// else is Unknown.
ActionClassification classifyAction(const ElementFacts &facts, const ActRequest &request);

// For standing grants: true only when the element has at least one label source, each is
// carried whole, nothing names a consequence, and every reading of every label source
// (accessible name, labels, visible text) reads as the same routine text.
bool everyLabelReadsSameRoutineWord(const ElementFacts &facts);

// The roles of an ordinary navigation control, which routine needs ("button", "link", ...).
QStringList routineRoles();
bool isRoutineRole(QStringView role);

// A navigation target's path segment (as it appears in an encoded path) is sensitive when,
// percent-decoded once, any reading of it names a consequence other than a submission or a
// state change, or an administrative, authentication, pricing or messaging area. Camel case, kebab
// case and snake case split words; a joined phrase ("deleteaccount") reads as the phrase.
bool isSensitivePathSegment(QStringView segment);
// A segment that makes an act consequential under ordinary interaction (docs/authority.md,
// "Sensitive areas"): any reading of it, percent-decoded once, names a consequence other than
// a publication, a submission, a state change or a file transfer (payment, billing, password,
// delete, sign-out, ...), or a sign-in, sign-up or verification area. An administrative, settings,
// account, pricing or messaging area is not: reading there needs nobody, and the write guard stands
// behind every act; the area only raises the card's warning (isAreaPathSegment).
bool isConsequentialPathSegment(QStringView segment);
// A segment that names an administrative, settings, account, sign-in, pricing or messaging
// area.
bool isAreaPathSegment(QStringView segment);
// The named consequence a segment (encoded, decoded here once) reads as, else Unknown.
BrowserActionConsequence pathSegmentConsequence(QStringView segment);

// The text normaliser and matcher under the classifier, exposed for tests and fuzzing.
namespace ConsequenceText {
// At most this many UTF-16 units of any one text are read.
inline constexpr qsizetype kMaxReadUnits = 4096;

struct Reading
{
    TextReading kind = TextReading::Written;
    QStringList words;         // case-folded, NFKC, format characters removed, split on the rest
    bool digitsFolded = false; // 0 and 1 read as letters (consequences only, never routine)
    friend bool operator==(const Reading &, const Reading &) = default;
};
// Every distinct reading of a text: as written and as displayed (with a left-to-right and a
// right-to-left paragraph), each plain and folded (lookalike letters read as Latin letters),
// and folded with the digit 0 read as o and 1 once as l and once as i. With splitCamelCase, each
// also once with camel-case humps split.
QList<Reading> readings(QStringView text, bool splitCamelCase = false);

struct TextVerdict
{
    // The first of kConsequencePriority any reading names, and the first reading naming it.
    std::optional<BrowserActionConsequence> named;
    TextReading namedBy = TextReading::None;
    bool area = false; // a reading names an administrative, sign-in, pricing or messaging area
    bool signInArea = false; // a reading names a sign-in, sign-up or verification area
    bool routine = false;    // every word of every unfolded-digit reading is a routine word
    bool unreadable = false; // a letter of a script no vocabulary covers (never routine then)
    QString routineText;     // when routine and every such reading is the same: those words
};
TextVerdict read(QStringView text, bool splitCamelCase = false);
} // namespace ConsequenceText

} // namespace veetbot
