#pragma once

#include "domain/action/ActRequest.h"
#include "domain/action/WriteGuard.h"
#include "domain/observation/ElementFacts.h"

#include <QJsonObject>
#include <QString>
#include <QUrl>

#include <optional>

namespace veetbot {

// The page the element was observed on: its URL (public HTTPS) and title.
struct PageFacts
{
    QUrl url;
    QString title;
};

// "https://host" or "https://host:port" of a public HTTPS URL (punycode host, lower case): the
// origin an approval is bound to.
QString approvalOriginOf(const QUrl &url);

// Credential-shaped values, which the approval view never shows. Each detector answers
// whether the text contains such a value anywhere.
namespace CredentialShape {
enum class Kind
{
    Jwt,              // three base64url segments, the first a JSON header ("eyJ...")
    BearerToken,      // "Bearer " followed by a token of 16 or more token characters
    PemBlock,         // "-----BEGIN ...-----"
    HighEntropyToken, // a run of 20+ token characters mixing upper, lower and digits with
                      // >= 3.5 bits of entropy per character, or 32+ hex digits with both
                      // letters and digits
    PaymentCardNumber // 13-19 digits (single spaces or hyphens between) passing Luhn
};
bool containsJwt(const QString &text);
bool containsBearerToken(const QString &text);
bool containsPemBlock(const QString &text);
bool containsHighEntropyToken(const QString &text);
bool containsLuhnNumber(const QString &text);
// The first shape found, in the order of Kind.
std::optional<Kind> find(const QString &text);
} // namespace CredentialShape

// The approval view of one browser.act call: what the owner is asked to approve. It names what
// will happen and never carries the element reference or the page revision. The summary holds
// only server-authored words, a role word from a closed list, and the page's punycode host and
// path (no query, no fragment). Every website string (title, role, name, visible text, dialog
// name, option, selected option) is quoted with quotes, backslashes, control, format (bidi) and
// separator characters escaped as \u{XXXX}, so it cannot reorder, hide or end the text around it.
// Typed text is shown the same way, except that it is redacted for a password, one-time-code or
// payment (cc-*) field, for a credential-shaped value, and for a field that cannot be
// described; text over 512 code points is shown as its SHA-256 instead. When the element's
// facts are missing the view says it cannot describe the element.
struct ApprovalView
{
    static constexpr int kMaxQuotedCodePoints = 256;
    static constexpr int kMaxShownTextCodePoints = 512;
    static constexpr int kMaxPathUnits = 512;

    enum class TextDisposition
    {
        None,     // not a type action
        Shown,    // typedText is the quoted, escaped text
        Redacted, // typedText is empty; redaction says why
        Digest    // typedText is the SHA-256 (hex) of the text's UTF-8
    };
    enum class Redaction
    {
        None,
        PasswordField,
        OneTimeCodeField,
        PaymentField,
        CredentialShaped,
        UndescribedField
    };

    QString summary;
    QString kind;      // "click", "type", ...
    QString host;      // punycode, ":port" when not 443
    QString path;      // percent-encoded, at most 512 units (cut marked with "...")
    QString pageTitle; // quoted
    bool elementDescribed = false;
    QString roleWord;                      // closed list; "element" when unknown or undescribed
    QString elementRole;                   // quoted; empty when undescribed
    QString accessibleName;                // quoted; empty when undescribed
    std::optional<QString> visibleText;    // quoted, only when it differs from the name
    std::optional<QString> dialogName;     // quoted, only inside a dialog
    std::optional<QString> option;         // select: the option asked for, quoted
    std::optional<QString> selectedOption; // the option a select shows now, quoted
    std::optional<bool> checked;           // check
    std::optional<QString> key;            // press
    std::optional<int> scrollDelta;        // scroll: signed CSS pixels (positive is down)
    TextDisposition textDisposition = TextDisposition::None;
    Redaction redaction = Redaction::None;
    QString typedText;
    int typedCodePoints = 0; // type: the text's length in code points
    // The classifier's named consequence ("payment", "destructive", ...) read from the element
    // the owner is asked about (for a navigation, from its address); empty when it names none
    // (routine or unknown).
    QString consequence;
    // Server-authored warnings beside the consequence, at most kMaxNotes, each a fixed
    // sentence: the page is in an administration or settings area; the site saved on its own
    // after an earlier act on this control; an address that changes the site.
    static constexpr int kMaxNotes = 4;
    QStringList notes;
    // navigate: the page the navigation leaves, when there is one (quoted title).
    std::optional<QString> fromPage;

    // What the write guard saw when the control was tried: the request its act sent (`late`
    // false) or the one the site sent on its own after it (`late` true).
    struct Refusal
    {
        WriteGuard::RefusedWrite request;
        bool late = false;
    };

    // `notes`: more fixed sentences to show (ApprovalView::kSiteSavesNote, ...). `refusal`
    // leads the notes, and an act's own refused request names the card's consequence when the
    // element's words name none.
    static ApprovalView build(const ActRequest &request, const PageFacts &page,
                              const std::optional<ElementFacts> &element,
                              const QStringList &notes = {},
                              const std::optional<Refusal> &refusal = std::nullopt);
    // The view of a browser.navigate to an address that reads as a change to the site
    // (WriteGuard::judge: a token, an operation that writes, a sign-out, a write endpoint),
    // from `from` (the current page, if any). Its host and path are the destination's; the
    // query shows only its page name and operation (PageAddress::queryLabel), never a value.
    static ApprovalView forNavigation(const QUrl &destination,
                                      const std::optional<PageFacts> &from);

    // Fixed notes.
    static const char *const kAreaNote;
    static const char *const kSiteSavesNote;
    static const char *const kAddressWritesNote;
    static const char *const kOutsideAddressNote;
    // The sentence for what the guard saw ("This control sent a request that looks destructive
    // (POST .../delete) when it was tried ...").
    static QString refusalNote(const Refusal &refusal);

    // A closed, content-bounded object for the audit record and machine surfaces.
    QJsonObject toJson() const;
    // toJson() without the typed text and its digest (their length stays): what an audit
    // record of a grant keeps.
    QJsonObject toAuditJson() const;
    // Lines for a terminal prompt or an elicitation message.
    QString toText() const;

    // "\"...\"" with the escapes described above, cut at maxCodePoints (marked "...").
    static QString quote(const QString &websiteText, int maxCodePoints = kMaxQuotedCodePoints);
    // The closed role word for an ARIA role ("radio" -> "radio button"); "element" otherwise.
    static QString roleWordFor(const QString &role);
};

QString redactionString(ApprovalView::Redaction redaction);

} // namespace veetbot
