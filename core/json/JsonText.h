#pragma once

#include <QByteArray>
#include <QStringView>

namespace veetbot::JsonText {

// How JSON writers in this project spell text: RFC 8785's string escaping (only '"', '\\' and
// U+0000..U+001F are escaped; \b \t \n \f \r in short form, the rest as lower-case \u00xx;
// everything else as UTF-8). One implementation serves canonical JSON and the model
// projection, so the two can never disagree about a byte.

// One code point of UTF-16 text: its UTF-16 length, and the UTF-8 and escaped JSON bytes it
// takes. A lone surrogate counts as a six-byte \uxxxx escape (three bytes of UTF-8).
struct CodePoint
{
    int units = 1;
    int utf8Bytes = 1;
    int jsonBytes = 1;
    bool loneSurrogate = false;
};
CodePoint codePointAt(QStringView text, qsizetype i);

enum class LoneSurrogates
{
    Refuse, // canonical JSON: text with one is not representable
    Escape, // written as \uxxxx, which keeps the output valid JSON
};

// Appends `text` as the body of a JSON string (no quotes). False, with `out` partly written,
// when `text` holds a lone surrogate and the policy refuses it.
bool appendEscaped(QByteArray &out, QStringView text, LoneSurrogates policy);

} // namespace veetbot::JsonText
