#include "JsonText.h"

namespace veetbot::JsonText {

namespace {

bool isHighSurrogate(char16_t unit)
{
    return unit >= 0xD800 && unit <= 0xDBFF;
}

bool isLowSurrogate(char16_t unit)
{
    return unit >= 0xDC00 && unit <= 0xDFFF;
}

// The short escape JSON has for a unit, or nullptr.
const char *shortEscape(char16_t unit)
{
    switch (unit) {
    case u'"':
        return "\\\"";
    case u'\\':
        return "\\\\";
    case u'\b':
        return "\\b";
    case u'\t':
        return "\\t";
    case u'\n':
        return "\\n";
    case u'\f':
        return "\\f";
    case u'\r':
        return "\\r";
    default:
        return nullptr;
    }
}

void appendUnitEscape(QByteArray &out, char16_t unit)
{
    static const char hex[] = "0123456789abcdef";
    const char escape[] = {'\\',
                           'u',
                           hex[(unit >> 12) & 0xF],
                           hex[(unit >> 8) & 0xF],
                           hex[(unit >> 4) & 0xF],
                           hex[unit & 0xF]};
    out.append(escape, sizeof escape);
}

} // namespace

CodePoint codePointAt(QStringView text, qsizetype i)
{
    const char16_t unit = text.at(i).unicode();
    if (isHighSurrogate(unit) && i + 1 < text.size() && isLowSurrogate(text.at(i + 1).unicode()))
        return {2, 4, 4, false};
    if (isHighSurrogate(unit) || isLowSurrogate(unit))
        return {1, 3, 6, true};
    if (shortEscape(unit))
        return {1, 1, 2, false};
    if (unit < 0x20)
        return {1, 1, 6, false};
    if (unit < 0x80)
        return {1, 1, 1, false};
    if (unit < 0x800)
        return {1, 2, 2, false};
    return {1, 3, 3, false};
}

bool appendEscaped(QByteArray &out, QStringView text, LoneSurrogates policy)
{
    const qsizetype size = text.size();
    for (qsizetype i = 0; i < size;) {
        const char16_t unit = text.at(i).unicode();
        const CodePoint point = codePointAt(text, i);
        if (point.units == 2) {
            const char32_t value = 0x10000 + ((char32_t(unit) - 0xD800) << 10) +
                                   (char32_t(text.at(i + 1).unicode()) - 0xDC00);
            const char bytes[] = {char(0xF0 | (value >> 18)), char(0x80 | ((value >> 12) & 0x3F)),
                                  char(0x80 | ((value >> 6) & 0x3F)), char(0x80 | (value & 0x3F))};
            out.append(bytes, sizeof bytes);
        } else if (point.loneSurrogate) {
            if (policy == LoneSurrogates::Refuse)
                return false;
            appendUnitEscape(out, unit);
        } else if (const char *escape = shortEscape(unit)) {
            out.append(escape);
        } else if (unit < 0x20) {
            appendUnitEscape(out, unit);
        } else if (unit < 0x80) {
            out.append(char(unit));
        } else if (unit < 0x800) {
            const char bytes[] = {char(0xC0 | (unit >> 6)), char(0x80 | (unit & 0x3F))};
            out.append(bytes, sizeof bytes);
        } else {
            const char bytes[] = {char(0xE0 | (unit >> 12)), char(0x80 | ((unit >> 6) & 0x3F)),
                                  char(0x80 | (unit & 0x3F))};
            out.append(bytes, sizeof bytes);
        }
        i += point.units;
    }
    return true;
}

} // namespace veetbot::JsonText
