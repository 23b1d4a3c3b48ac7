#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>

#include <optional>
#include <vector>

namespace veetbot {

// The strict RFC 8259 / I-JSON parser for every untrusted JSON boundary: stored vault records,
// MCP input, the browser host's protocol lines. Unlike QJsonDocument it refuses duplicate
// object member names (compared after unescaping, at any depth), input above a byte bound,
// nesting above a depth bound, containers above a member bound, trailing bytes after the
// value, a byte-order mark, invalid UTF-8 (overlong forms, surrogates, code points above
// U+10FFFF), unpaired \u surrogate escapes and raw control characters in strings. Numbers are
// integers within +/-(2^53 - 1) (no fraction, exponent or "-0"), or, where the boundary's
// format has them, any finite number. It never returns a partial value, and its failures
// never quote the input. It depends on QtCore alone: the bottom of the core's layers.
class StrictJson
{
public:
    enum class Numbers
    {
        SafeIntegers, // integers within +/-(2^53 - 1) only (stored records, canonical JSON)
        Finite,       // also fractions and exponents that are finite doubles (protocols)
    };
    struct Limits
    {
        qsizetype maxBytes = 1024 * 1024;
        int maxDepth = 32;
        qsizetype maxMembers = 4096; // per object or array
        Numbers numbers = Numbers::SafeIntegers;
    };

    // Why a parse failed, for tests and the fuzzer; the Error itself stays generic.
    enum class Failure
    {
        None,
        TooLarge,
        Syntax,
        TrailingData,
        DuplicateKey,
        TooDeep,
        TooManyMembers,
        InvalidUtf8,
        InvalidEscape,
        ControlCharacter,
        NumberNotAllowed,
    };

    static constexpr qint64 kMaxSafeInteger = (qint64(1) << 53) - 1;
    // Hard ceiling on Limits::maxDepth so recursion can never exhaust the stack.
    static constexpr int kDepthCeiling = 256;

    struct Member;
    // The parsed document. Strings stay validated UTF-8 bytes, so a large member (an
    // envelope's ciphertext) is never widened to UTF-16. Object members keep input order;
    // their names are unique.
    struct Value
    {
        enum class Type
        {
            Null,
            Bool,
            Integer, // within +/-(2^53 - 1)
            Number,  // any other finite number (Numbers::Finite only)
            String,
            Array,
            Object
        };
        Type type = Type::Null;
        bool boolean = false;
        qint64 integer = 0;
        double number = 0;
        QByteArray string; // UTF-8
        std::vector<Value> items;
        std::vector<Member> members;

        bool isString() const { return type == Type::String; }
        bool isObject() const { return type == Type::Object; }
        // The member with this (UTF-8) name, or nullptr.
        const Value *member(QByteArrayView name) const;
        QJsonValue toJsonValue() const;
    };
    struct Member
    {
        QByteArray name; // UTF-8
        Value value;
    };

    // nullopt when the input exceeds limits.maxBytes (Failure::TooLarge, checked before any
    // byte is read) or breaks any rule above; `failure` says which.
    [[nodiscard]] static std::optional<Value>
    parseDocument(QByteArrayView input, const Limits &limits, Failure *failure = nullptr);
    // The same, as Qt JSON values (integers as qint64).
    [[nodiscard]] static std::optional<QJsonValue> parse(QByteArrayView input, const Limits &limits,
                                                         Failure *failure = nullptr);
    [[nodiscard]] static std::optional<QJsonValue> parse(QByteArrayView input)
    {
        return parse(input, Limits());
    }
};

} // namespace veetbot
