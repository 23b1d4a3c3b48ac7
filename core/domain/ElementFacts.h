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

} // namespace veetbot
