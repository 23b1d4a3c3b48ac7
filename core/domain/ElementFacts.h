#pragma once

#include <QString>

namespace veetbot {

// Facts about an act's target element, taken from the observation that named it. A private
// sidecar: the provider records it next to the observation, the approval view and the action
// classifier read it, and it never enters a model-visible result. Every string is website
// content.
struct ElementFacts
{
    QString role;           // lower-case ARIA role
    QString accessibleName; // the element's accessible name
    QString visibleText;    // its visible text (shown only when it differs from the name)
    QString dialogName;     // the enclosing dialog's accessible name, empty outside a dialog
    QString inputType;      // an input's type attribute (e.g. "password"), else empty
    QString autocomplete;   // the autocomplete attribute's tokens as written, else empty
    friend bool operator==(const ElementFacts &, const ElementFacts &) = default;
};

// Facts about the page a capture read, beside its elements' facts and as private: what the
// sign-in challenge detector needs that no element carries.
struct PageEvidence
{
    static constexpr int kMaxChallengeFrames = 16;
    int challengeFrames = 0; // visible frames of a CAPTCHA service (not the reCAPTCHA badge)
    friend bool operator==(const PageEvidence &, const PageEvidence &) = default;
};

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
