#pragma once

#include "domain/Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>

#include <vector>

namespace veetbot {

// A strict RFC 8259 / I-JSON parser for untrusted stored records. Unlike QJsonDocument it
// refuses duplicate object member names (compared after unescaping, at any depth), input
// above a byte bound, nesting above a depth bound, containers above a member bound,
// trailing bytes after the value, a byte-order mark, invalid UTF-8 (overlong forms,
// surrogates, code points above U+10FFFF), unpaired \u surrogate escapes, raw control
// characters in strings, and every number that is not an integer within +/-(2^53 - 1)
// (no fraction, exponent or "-0"). It never returns a partial value and its errors never
// quote the input.
class StrictJson
{
public:
    struct Limits
    {
        qsizetype maxBytes = 1024 * 1024;
        int maxDepth = 32;
        qsizetype maxMembers = 4096; // per object or array
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
            Integer,
            String,
            Array,
            Object
        };
        Type type = Type::Null;
        bool boolean = false;
        qint64 integer = 0;
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

    // vault.too_large when the input exceeds limits.maxBytes (checked before any byte is
    // read); vault.corrupt_record for every other violation.
    static Result<Value> parseDocument(QByteArrayView input, const Limits &limits,
                                       Failure *failure = nullptr);
    // The same, as Qt JSON values (integers as qint64).
    static Result<QJsonValue> parse(QByteArrayView input, const Limits &limits,
                                    Failure *failure = nullptr);
    static Result<QJsonValue> parse(QByteArrayView input) { return parse(input, Limits()); }
};

} // namespace veetbot
