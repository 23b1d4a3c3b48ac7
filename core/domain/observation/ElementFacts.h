#pragma once

#include "domain/action/ActionConsequence.h"
#include "domain/action/WriteGuard.h"

#include <QList>
#include <QString>
#include <QStringView>
#include <QUrl>

#include <optional>

namespace veetbot {

// What kind of field an element is, from its tag, type attribute and autocomplete tokens. A
// closed list: the special kinds (credential, one-time code, payment, identity) come from the
// autocomplete tokens before the type decides.
enum class FieldKind
{
    None,           // not a field (a button, a link, a page-built control without editing)
    Text,           // input type=text (or no type)
    Search,         // input type=search
    MultiLine,      // textarea
    Email,          // input type=email, or autocomplete email
    Url,            // input type=url, or autocomplete url
    Tel,            // input type=tel, or autocomplete tel*
    Number,         // input type=number
    Date,           // input type=date, datetime-local, month, week, time
    Credential,     // a password field, or autocomplete username / webauthn
    OneTimeCode,    // autocomplete one-time-code
    Payment,        // autocomplete cc-* or transaction-*
    Identity,       // autocomplete naming a person's name, address, birthday or sex
    Select,         // select
    Checkbox,       // input type=checkbox
    Radio,          // input type=radio
    File,           // input type=file
    EditableRegion, // an element the page made editable (contenteditable)
    Other           // any other input (range, color, ...)
};
QString fieldKindString(FieldKind kind); // "text", "multi_line", "one_time_code", ...
std::optional<FieldKind> fieldKindFromString(QStringView text);
// control: "input", "textarea", "select" or empty; editable: an editing host.
FieldKind fieldKindOf(QStringView control, QStringView inputType, QStringView autocomplete,
                      bool editable);

// Where a label text comes from. Visible text is ElementFacts::visibleText.
enum class LabelSource
{
    AriaLabel,       // the aria-label attribute
    Title,           // the title attribute
    Placeholder,     // the placeholder or aria-placeholder attribute
    AssociatedLabel, // <label for> elements and a wrapping label, joined
    LabelledBy,      // the elements aria-labelledby names, joined
    AlternativeText, // the element's own alt, and the alt of images inside it
    ButtonValue      // the value attribute of a button or a button-type input
};
QString labelSourceString(LabelSource source); // "aria_label", "labelled_by", ...
std::optional<LabelSource> labelSourceFromString(QStringView text);

// One label source: at most kMaxLabelUnits of it, read from at most kMaxLabelReadUnits.
struct LabelText
{
    LabelSource source = LabelSource::AriaLabel;
    QString text;
    bool whole = true; // false: the page's text went on beyond what was kept
    friend bool operator==(const LabelText &, const LabelText &) = default;
};

// What the browser process tells about a link's or a submit button's target, never the URL:
// whether it is on the page's origin, its first path segment, whether any segment is
// sensitive (isSensitivePathSegment), the named consequence its segments read as, and whether
// the link downloads it.
struct NavigationTarget
{
    bool sameOrigin = false;
    QString firstSegment; // percent-decoded; empty for "/" and for a target that is not read
    bool sensitive = true;
    BrowserActionConsequence pathConsequence = BrowserActionConsequence::Unknown;
    bool download = false;
    // A submit button whose form sends with a method other than GET (a POST form): what it
    // sends is the owner's input, a submission whatever the button says.
    bool submission = false;
    // What the target's query says it does, never its values: a token-shaped or
    // operation-shaped parameter (WriteGuard::queryWriteReason) reads as the operation's named
    // consequence, else as a state change; a name or value that reads as signing out
    // ("title=Special:UserLogout") as a sign-out. Unknown otherwise.
    BrowserActionConsequence queryConsequence = BrowserActionConsequence::Unknown;
    // A path segment makes an act on it consequential under ordinary interaction
    // (isConsequentialPathSegment: a payment, a deletion, a sign-in area, ...; never an
    // administration or settings area, never a word for publishing or saving).
    bool consequential = true;
    // What a click on it sends writes: a submission, or a GET the write guard would refuse
    // (WriteGuard::judge of a document at the target: a token, an operation that writes, a
    // sign-out, a write endpoint). A target that is not an http(s) URL writes.
    bool writes = true;
    friend bool operator==(const NavigationTarget &, const NavigationTarget &) = default;
};
// The summary of `target` (absolute, as the page resolved it) seen from `page`. A target that
// is not an http(s) URL is not same-origin and has no segments; one whose first segment is
// longer than kMaxSegmentUnits, or whose path has more than kMaxTargetSegments segments, is
// sensitive and carries no first segment. `submission`: a submit button of a form whose
// method is not GET.
NavigationTarget navigationTargetOf(const QUrl &target, const QUrl &page, bool download,
                                    bool submission = false);
// What a URL's query says it does (NavigationTarget::queryConsequence).
BrowserActionConsequence queryConsequenceOf(const QUrl &url);

// Facts about an act's target element, taken from the observation that named it. A private
// sidecar: the provider records it next to the observation, the approval view and the action
// classifier read it, and it never enters a model-visible result. Every string is website
// content. A target URL is never among them, only its summary.
struct ElementFacts
{
    static constexpr qsizetype kMaxLabelUnits = 256;
    static constexpr qsizetype kMaxLabelReadUnits = 1024;
    static constexpr qsizetype kMaxDialogUnits = 128;
    static constexpr qsizetype kMaxInputTypeUnits = 64;
    static constexpr qsizetype kMaxAutocompleteUnits = 256;
    static constexpr qsizetype kMaxSegmentUnits = 256;
    static constexpr qsizetype kMaxTargetSegments = 64;
    static constexpr qsizetype kMaxLabels = 7; // one per LabelSource
    // The longest target URL the collector hands the browser process to summarise.
    static constexpr qsizetype kMaxTargetUrlUnits = 8192;

    QString role;           // lower-case ARIA role
    QString accessibleName; // the element's accessible name
    QString visibleText;    // its visible text (shown only when it differs from the name)
    QString dialogName;     // the enclosing dialog's accessible name, empty outside a dialog
    QString inputType;      // an input's type attribute (e.g. "password"), else empty
    QString autocomplete;   // the autocomplete attribute's tokens as written, else empty
    bool visibleTextWhole = true;
    QList<LabelText> labels; // each non-empty label source but the visible text, at most once
    QString selectedOption;  // the label of a select's selected option
    bool selectedOptionWhole = true;
    FieldKind fieldKind = FieldKind::None;
    bool disabled = false;
    bool inForm = false;
    bool native = false; // an HTML input, textarea or select (not a control the page built)
    std::optional<NavigationTarget> target; // a link's href, a submit button's form action
    friend bool operator==(const ElementFacts &, const ElementFacts &) = default;
};

// Facts about the page a capture read, beside its elements' facts and as private: what the
// sign-in challenge detector needs that no element carries.
struct PageEvidence
{
    static constexpr int kMaxChallengeFrames = 16;
    static constexpr int kMaxLateWrites = 1000;
    int challengeFrames = 0; // visible frames of a CAPTCHA service (not the reCAPTCHA badge)
    // Writes the write guard refused on the page while no act or navigation ran, since the
    // previous capture (a save the site makes on its own after an act answered), at most
    // kMaxLateWrites.
    int lateWrites = 0;
    // The last request the write guard refused on the page since the previous capture (an
    // act's own, or a late one), as the guard saw it: never a value.
    std::optional<WriteGuard::RefusedWrite> refusedWrite;
    // The requests to origins outside the profile's that the guard refused since the previous
    // capture (never their URLs), at most kMaxLateWrites.
    int strangerRequestsRefused = 0;
    friend bool operator==(const PageEvidence &, const PageEvidence &) = default;
};

// Whether every string is within its bound and no label source appears twice: what the
// collector's answer and the host protocol must hold before facts are recorded.
bool withinBounds(const ElementFacts &facts);
// Every label source but the visible text is whole, and so is the visible text.
bool everyLabelSourceWhole(const ElementFacts &facts);

// The secret a field holds, by its type and its autocomplete tokens (split on HTML white
// space, compared ASCII case-insensitively): a password (type=password, current-password,
// new-password), a one-time code, a payment card field (cc-*), or none. The first token that
// names one decides.
enum class FieldSecret
{
    None,
    Password,
    OneTimeCode,
    Payment
};
FieldSecret fieldSecret(const ElementFacts &facts);
// A password or one-time-code field: browser.act never types into it.
bool refusesTyping(const ElementFacts &facts);

} // namespace veetbot
