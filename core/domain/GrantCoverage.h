#pragma once

#include <QString>

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

} // namespace GrantCoverage
} // namespace veetbot
