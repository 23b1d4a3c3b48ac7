#include "StrictJson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace veetbot {

namespace {

class Parser
{
public:
    Parser(QByteArrayView input, const StrictJson::Limits &limits)
        : m_data(reinterpret_cast<const unsigned char *>(input.data())), m_size(input.size()),
          m_maxDepth(std::clamp(limits.maxDepth, 0, StrictJson::kDepthCeiling)),
          m_maxMembers(limits.maxMembers), m_numbers(limits.numbers)
    {
    }

    using Value = StrictJson::Value;

    std::optional<Value> parseDocument()
    {
        skipWhitespace();
        std::optional<Value> value = parseValue(0);
        if (!value)
            return std::nullopt;
        skipWhitespace();
        if (m_pos != m_size)
            return fail(StrictJson::Failure::TrailingData);
        return value;
    }

    StrictJson::Failure failure() const { return m_failure; }

private:
    std::nullopt_t fail(StrictJson::Failure failure)
    {
        if (m_failure == StrictJson::Failure::None)
            m_failure = failure;
        return std::nullopt;
    }

    bool atEnd() const { return m_pos >= m_size; }
    unsigned char peek() const { return m_data[m_pos]; }

    void skipWhitespace()
    {
        while (!atEnd()) {
            const unsigned char c = peek();
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                return;
            ++m_pos;
        }
    }

    bool consumeLiteral(const char *literal)
    {
        for (qsizetype i = 0; literal[i] != '\0'; ++i) {
            if (m_pos + i >= m_size || m_data[m_pos + i] != static_cast<unsigned char>(literal[i]))
                return false;
        }
        m_pos += qsizetype(strlen(literal));
        return true;
    }

    static Value scalar(Value::Type type)
    {
        Value value;
        value.type = type;
        return value;
    }

    std::optional<Value> parseValue(int depth)
    {
        if (atEnd())
            return fail(StrictJson::Failure::Syntax);
        switch (peek()) {
        case '{':
            return parseObject(depth + 1);
        case '[':
            return parseArray(depth + 1);
        case '"': {
            std::optional<QByteArray> text = parseString();
            if (!text)
                return std::nullopt;
            Value value = scalar(Value::Type::String);
            value.string = std::move(*text);
            return value;
        }
        case 't':
            if (consumeLiteral("true")) {
                Value value = scalar(Value::Type::Bool);
                value.boolean = true;
                return value;
            }
            return fail(StrictJson::Failure::Syntax);
        case 'f':
            if (consumeLiteral("false"))
                return scalar(Value::Type::Bool);
            return fail(StrictJson::Failure::Syntax);
        case 'n':
            if (consumeLiteral("null"))
                return scalar(Value::Type::Null);
            return fail(StrictJson::Failure::Syntax);
        default:
            break;
        }
        if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
            return parseNumber();
        return fail(StrictJson::Failure::Syntax);
    }

    std::optional<Value> parseNumber()
    {
        const qsizetype start = m_pos;
        const bool negative = peek() == '-';
        if (negative)
            ++m_pos;
        if (atEnd() || peek() < '0' || peek() > '9')
            return fail(StrictJson::Failure::Syntax);
        const qsizetype digitsStart = m_pos;
        if (peek() == '0') {
            ++m_pos;
            if (!atEnd() && peek() >= '0' && peek() <= '9')
                return fail(StrictJson::Failure::Syntax); // leading zero
        } else {
            while (!atEnd() && peek() >= '0' && peek() <= '9')
                ++m_pos;
        }
        const bool finiteAllowed = m_numbers == StrictJson::Numbers::Finite;
        if (!atEnd() && (peek() == '.' || peek() == 'e' || peek() == 'E')) {
            if (!finiteAllowed)
                return fail(StrictJson::Failure::NumberNotAllowed);
            return parseFiniteNumber(start);
        }
        // More than 16 digits is past 2^53 - 1 whatever they are.
        qint64 value = 0;
        const bool safe = m_pos - digitsStart <= 16;
        for (qsizetype i = digitsStart; safe && i < m_pos; ++i)
            value = value * 10 + (m_data[i] - '0');
        if (!safe || value > StrictJson::kMaxSafeInteger || (negative && value == 0)) {
            if (!finiteAllowed)
                return fail(StrictJson::Failure::NumberNotAllowed);
            return finiteNumber(start);
        }
        Value number = scalar(Value::Type::Integer);
        number.integer = negative ? -value : value;
        return number;
    }

    // The rest of a number after its integer part: RFC 8259's fraction and exponent.
    std::optional<Value> parseFiniteNumber(qsizetype start)
    {
        const auto digits = [this] {
            const qsizetype first = m_pos;
            while (!atEnd() && peek() >= '0' && peek() <= '9')
                ++m_pos;
            return m_pos > first;
        };
        if (!atEnd() && peek() == '.') {
            ++m_pos;
            if (!digits())
                return fail(StrictJson::Failure::Syntax);
        }
        if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
            ++m_pos;
            if (!atEnd() && (peek() == '+' || peek() == '-'))
                ++m_pos;
            if (!digits())
                return fail(StrictJson::Failure::Syntax);
        }
        return finiteNumber(start);
    }

    // The number spelled by [start, m_pos), converted by the standard library; one that is
    // not a finite double (an overflow) is refused rather than approximated as infinity.
    std::optional<Value> finiteNumber(qsizetype start)
    {
        const char *first = reinterpret_cast<const char *>(m_data + start);
        const char *last = reinterpret_cast<const char *>(m_data + m_pos);
        double parsed = 0;
        const auto [end, error] = std::from_chars(first, last, parsed);
        if (error != std::errc() || end != last || !std::isfinite(parsed))
            return fail(StrictJson::Failure::NumberNotAllowed);
        Value number = scalar(Value::Type::Number);
        number.number = parsed;
        return number;
    }

    std::optional<int> hexQuad()
    {
        if (m_size - m_pos < 4)
            return std::nullopt;
        int value = 0;
        for (int i = 0; i < 4; ++i) {
            const unsigned char c = m_data[m_pos + i];
            int digit;
            if (c >= '0' && c <= '9')
                digit = c - '0';
            else if (c >= 'a' && c <= 'f')
                digit = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F')
                digit = c - 'A' + 10;
            else
                return std::nullopt;
            value = value * 16 + digit;
        }
        m_pos += 4;
        return value;
    }

    static void appendUtf8(QByteArray &out, char32_t codePoint)
    {
        if (codePoint < 0x80) {
            out.append(char(codePoint));
        } else if (codePoint < 0x800) {
            out.append(char(0xC0 | (codePoint >> 6)));
            out.append(char(0x80 | (codePoint & 0x3F)));
        } else if (codePoint < 0x10000) {
            out.append(char(0xE0 | (codePoint >> 12)));
            out.append(char(0x80 | ((codePoint >> 6) & 0x3F)));
            out.append(char(0x80 | (codePoint & 0x3F)));
        } else {
            out.append(char(0xF0 | (codePoint >> 18)));
            out.append(char(0x80 | ((codePoint >> 12) & 0x3F)));
            out.append(char(0x80 | ((codePoint >> 6) & 0x3F)));
            out.append(char(0x80 | (codePoint & 0x3F)));
        }
    }

    // One escape after the backslash; appends its UTF-8 to out.
    bool parseEscape(QByteArray &out)
    {
        if (atEnd()) {
            fail(StrictJson::Failure::Syntax);
            return false;
        }
        const unsigned char c = peek();
        ++m_pos;
        switch (c) {
        case '"':
            out.append('"');
            return true;
        case '\\':
            out.append('\\');
            return true;
        case '/':
            out.append('/');
            return true;
        case 'b':
            out.append('\b');
            return true;
        case 'f':
            out.append('\f');
            return true;
        case 'n':
            out.append('\n');
            return true;
        case 'r':
            out.append('\r');
            return true;
        case 't':
            out.append('\t');
            return true;
        case 'u':
            break;
        default:
            fail(StrictJson::Failure::InvalidEscape);
            return false;
        }
        const std::optional<int> unit = hexQuad();
        if (!unit || (*unit >= 0xDC00 && *unit <= 0xDFFF)) {
            fail(StrictJson::Failure::InvalidEscape); // malformed, or unpaired low surrogate
            return false;
        }
        if (*unit >= 0xD800 && *unit <= 0xDBFF) {
            if (m_size - m_pos < 2 || m_data[m_pos] != '\\' || m_data[m_pos + 1] != 'u') {
                fail(StrictJson::Failure::InvalidEscape);
                return false;
            }
            m_pos += 2;
            const std::optional<int> low = hexQuad();
            if (!low || *low < 0xDC00 || *low > 0xDFFF) {
                fail(StrictJson::Failure::InvalidEscape);
                return false;
            }
            appendUtf8(out,
                       0x10000 + ((char32_t(*unit) - 0xD800) << 10) + (char32_t(*low) - 0xDC00));
            return true;
        }
        appendUtf8(out, char32_t(*unit));
        return true;
    }

    // One multi-byte UTF-8 sequence (RFC 3629 table); appends it unchanged once valid.
    bool parseUtf8Sequence(QByteArray &out)
    {
        const unsigned char lead = peek();
        int continuation;
        unsigned char low = 0x80;
        unsigned char high = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            continuation = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            continuation = 2;
            if (lead == 0xE0)
                low = 0xA0; // no overlong forms
            else if (lead == 0xED)
                high = 0x9F; // no UTF-16 surrogates
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            continuation = 3;
            if (lead == 0xF0)
                low = 0x90;
            else if (lead == 0xF4)
                high = 0x8F; // nothing above U+10FFFF
        } else {
            fail(StrictJson::Failure::InvalidUtf8);
            return false;
        }
        if (m_size - m_pos <= continuation) {
            fail(StrictJson::Failure::InvalidUtf8);
            return false;
        }
        for (int i = 1; i <= continuation; ++i) {
            const unsigned char c = m_data[m_pos + i];
            if (c < low || c > high) {
                fail(StrictJson::Failure::InvalidUtf8);
                return false;
            }
            low = 0x80;
            high = 0xBF;
        }
        out.append(reinterpret_cast<const char *>(m_data + m_pos), continuation + 1);
        m_pos += continuation + 1;
        return true;
    }

    std::optional<QByteArray> parseString()
    {
        ++m_pos; // opening quote
        QByteArray out;
        while (true) {
            // Plain ASCII runs are copied in one go.
            const unsigned char *const runStart = m_data + m_pos;
            const unsigned char *const end = m_data + m_size;
            const unsigned char *run = runStart;
            while (run < end && *run >= 0x20 && *run < 0x80 && *run != '"' && *run != '\\')
                ++run;
            if (run > runStart) {
                out.append(reinterpret_cast<const char *>(runStart), run - runStart);
                m_pos += run - runStart;
            }
            if (atEnd())
                return fail(StrictJson::Failure::Syntax);
            const unsigned char c = peek();
            if (c == '"') {
                ++m_pos;
                return out;
            }
            if (c == '\\') {
                ++m_pos;
                if (!parseEscape(out))
                    return std::nullopt;
                continue;
            }
            if (c < 0x20)
                return fail(StrictJson::Failure::ControlCharacter);
            if (!parseUtf8Sequence(out))
                return std::nullopt;
        }
    }

    std::optional<Value> parseObject(int depth)
    {
        if (depth > m_maxDepth)
            return fail(StrictJson::Failure::TooDeep);
        ++m_pos; // '{'
        Value object = scalar(Value::Type::Object);
        QSet<QByteArray> seen;
        skipWhitespace();
        if (!atEnd() && peek() == '}') {
            ++m_pos;
            return object;
        }
        while (true) {
            skipWhitespace();
            if (atEnd() || peek() != '"')
                return fail(StrictJson::Failure::Syntax);
            std::optional<QByteArray> name = parseString();
            if (!name)
                return std::nullopt;
            // Names compare after unescaping: "a" and "\u0061" are the same member.
            if (seen.contains(*name))
                return fail(StrictJson::Failure::DuplicateKey);
            if (qsizetype(object.members.size()) >= m_maxMembers)
                return fail(StrictJson::Failure::TooManyMembers);
            skipWhitespace();
            if (atEnd() || peek() != ':')
                return fail(StrictJson::Failure::Syntax);
            ++m_pos;
            skipWhitespace();
            std::optional<Value> value = parseValue(depth);
            if (!value)
                return std::nullopt;
            seen.insert(*name);
            object.members.push_back(StrictJson::Member{std::move(*name), std::move(*value)});
            skipWhitespace();
            if (atEnd())
                return fail(StrictJson::Failure::Syntax);
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == '}') {
                ++m_pos;
                return object;
            }
            return fail(StrictJson::Failure::Syntax);
        }
    }

    std::optional<Value> parseArray(int depth)
    {
        if (depth > m_maxDepth)
            return fail(StrictJson::Failure::TooDeep);
        ++m_pos; // '['
        Value array = scalar(Value::Type::Array);
        skipWhitespace();
        if (!atEnd() && peek() == ']') {
            ++m_pos;
            return array;
        }
        while (true) {
            skipWhitespace();
            if (qsizetype(array.items.size()) >= m_maxMembers)
                return fail(StrictJson::Failure::TooManyMembers);
            std::optional<Value> value = parseValue(depth);
            if (!value)
                return std::nullopt;
            array.items.push_back(std::move(*value));
            skipWhitespace();
            if (atEnd())
                return fail(StrictJson::Failure::Syntax);
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == ']') {
                ++m_pos;
                return array;
            }
            return fail(StrictJson::Failure::Syntax);
        }
    }

    const unsigned char *m_data;
    qsizetype m_size;
    qsizetype m_pos = 0;
    int m_maxDepth;
    qsizetype m_maxMembers;
    StrictJson::Numbers m_numbers;
    StrictJson::Failure m_failure = StrictJson::Failure::None;
};

} // namespace

const StrictJson::Value *StrictJson::Value::member(QByteArrayView name) const
{
    for (const Member &candidate : members) {
        if (candidate.name == name)
            return &candidate.value;
    }
    return nullptr;
}

QJsonValue StrictJson::Value::toJsonValue() const
{
    switch (type) {
    case Type::Null:
        return QJsonValue(QJsonValue::Null);
    case Type::Bool:
        return QJsonValue(boolean);
    case Type::Integer:
        return QJsonValue(integer);
    case Type::Number:
        return QJsonValue(number);
    case Type::String:
        return QJsonValue(QString::fromUtf8(string));
    case Type::Array: {
        QJsonArray array;
        for (const Value &item : items)
            array.append(item.toJsonValue());
        return array;
    }
    case Type::Object: {
        // Inserting in name order keeps QJsonObject's sorted storage append-only.
        std::vector<std::pair<QString, const Value *>> sorted;
        sorted.reserve(members.size());
        for (const Member &member : members)
            sorted.emplace_back(QString::fromUtf8(member.name), &member.value);
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto &a, const auto &b) { return a.first < b.first; });
        QJsonObject object;
        for (const auto &[name, value] : sorted)
            object.insert(name, value->toJsonValue());
        return object;
    }
    }
    return QJsonValue();
}

std::optional<StrictJson::Value> StrictJson::parseDocument(QByteArrayView input,
                                                           const Limits &limits, Failure *failure)
{
    if (failure)
        *failure = Failure::None;
    if (input.size() > limits.maxBytes) {
        if (failure)
            *failure = Failure::TooLarge;
        return std::nullopt;
    }
    Parser parser(input, limits);
    std::optional<Value> value = parser.parseDocument();
    if (!value && failure)
        *failure = parser.failure();
    return value;
}

std::optional<QJsonValue> StrictJson::parse(QByteArrayView input, const Limits &limits,
                                            Failure *failure)
{
    const std::optional<Value> value = parseDocument(input, limits, failure);
    if (!value)
        return std::nullopt;
    return value->toJsonValue();
}

} // namespace veetbot
