#pragma once

#include "domain/action/ActRequest.h"
#include "domain/observation/ElementFacts.h"

#include <QJsonObject>
#include <QString>
#include <QUrl>

#include <optional>

namespace veetbot {

// The rules a task grant and ordinary interaction share for what they may do without a
// fresh approval (docs/authority.md). Pure: the worker applies them to the observation that
// named the element, the isolated runtime again to the live page just before input.
namespace GrantCoverage {

// The most characters one covered type may carry.
inline constexpr int kMaxTypedCharacters = 256;

// Why typed text is not covered.
enum class TextRefusal
{
    TooLong,        // over kMaxTypedCharacters characters (code points)
    EmailOrHandle,  // "@"
    Address,        // "://" or "www."
    DigitRun,       // four or more digits in a row (codes, card and phone numbers)
    CredentialShape // a token, key or card number (CredentialShape)
};
// nullopt when `text` may be typed under a grant; otherwise the first rule it breaks, in the
// order of TextRefusal. Digits are any Unicode decimal digits; letters are compared without
// case.
std::optional<TextRefusal> refuseTypedText(const QString &text);
QString textRefusalString(TextRefusal refusal);

// Why an act is not covered without a fresh approval.
enum class ActRefusal
{
    NamedConsequence, // the classifier names a consequence (ActionConsequence)
    Disabled,         // a disabled element
    Unnamed,          // no accessible name
    PartialLabel,     // a label source (or the selected option) not carried whole
    SensitiveField,   // a credential, one-time-code, payment, identity or file field
    FieldKind,        // typing outside a native text, search or multi-line field; select
                      // outside a native select; check outside a native check box or radio
    ChoiceKey,        // a key press on a choice control or a select
    TypedText,        // typed text that breaks refuseTypedText()
    Target,           // a link or form target off the origin, on a sensitive path (ordinary
                      // interaction: a consequential one), a download, or a submission whose
                      // target the facts do not carry
    Page,             // the page itself is on a sensitive path (ordinary interaction: a
                      // consequential one, or its query writes), or not http(s)
    Unreadable        // its label is in a script no vocabulary covers (ordinary interaction and
                      // standing grants only; a task grant may cover it)
};
QString actRefusalString(ActRefusal refusal);

// Who would cover the act: ordinary interaction; a standing grant, which narrows it further;
// or a task grant, whose writes inside its scope are the point: it may also cover a
// submission, a state change and an unreadable label. Ordinary interaction reads anywhere on
// the origin but where a path names a consequence (isConsequentialPathSegment): in an
// administration or settings area too, since the write guard stands behind each of its acts.
// A standing grant and a task grant keep out of every sensitive path (isSensitivePathSegment).
enum class Coverer
{
    OrdinaryInteraction,
    TaskGrant,
    StandingGrant
};

// Ordinary interaction's coverage (and a task grant's, whose path prefix is checked beside
// it): nullopt when `request` on the element `facts` describes, on `page`, may run without a
// fresh approval. The first rule broken, in the order of ActRefusal, otherwise. Any click on
// an element in a form, and Enter or Space pressed on one, is a submission, whatever its role.
std::optional<ActRefusal> refuseAct(const ActRequest &request, const ElementFacts &facts,
                                    const QUrl &page,
                                    Coverer coverer = Coverer::OrdinaryInteraction);

} // namespace GrantCoverage

// What an act authorized without a fresh approval carries to the browser that runs it: the
// authority it runs under and, for a task grant, the one path segment its scope allows. Just
// before the first input the browser reads the live element's facts again and applies
// GrantCoverage::refuseAct() (and the prefix) to them and to the live page; a refusal is
// tool.browser.grant_not_applicable with nothing sent. While the act runs, document requests
// stay on the page's origin, off sensitive paths and inside the prefix (allowsDocument()).
struct DispatchConstraint
{
    enum class Authority
    {
        OrdinaryInteraction,
        TaskGrant,
        StandingGrant // routine interaction only: every label reads the same routine word
    };
    Authority authority = Authority::OrdinaryInteraction;
    QString prefixSegment; // a task grant's scope segment; empty for ordinary interaction

    // {"authority":"ordinary_interaction"}, {"authority":"standing_grant"} or
    // {"authority":"task_grant","prefix":"lesson"}.
    QJsonObject toJson() const;
    // Strict: unknown members, a prefix for ordinary interaction or a standing grant, or a
    // task grant without a well-formed prefix (no "/", at most 64 characters) are nullopt.
    static std::optional<DispatchConstraint> fromJson(const QJsonValue &value);

    // The live recheck: refuseAct() on the live facts and page, a task grant's prefix, and
    // for a standing grant a routine classification with every label the same routine word.
    bool covers(const ActRequest &request, const ElementFacts &liveFacts,
                const QUrl &livePage) const;
    // The fence: whether a document may load at `url` while the act runs on a page at
    // `origin`: same origin, no sensitive path segment, and inside the prefix when one is set.
    bool allowsDocument(const QUrl &url, const QUrl &page) const;

    friend bool operator==(const DispatchConstraint &, const DispatchConstraint &) = default;
};
} // namespace veetbot
