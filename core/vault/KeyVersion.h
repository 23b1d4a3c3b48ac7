#pragma once

#include "domain/Result.h"

#include <QByteArrayView>
#include <QDate>
#include <QString>
#include <QStringView>

namespace veetbot {

// The grammar of key version names: ^[a-z0-9][a-z0-9_-]{0,63}$. A version is an opaque
// label (it names a key file and is bound into envelopes); it never encodes key bytes and is
// never parsed for meaning.
class KeyVersion
{
public:
    static constexpr qsizetype kMaxLength = 64;
    // Bytes of random in a generated name (hex encoded).
    static constexpr qsizetype kRandomBytes = 4;

    static bool isValid(QStringView name);
    // The same grammar over raw ASCII bytes (the content of a `current` file).
    static bool isValid(QByteArrayView name);

    // "k" + yyyyMMdd + "-" + hex of `random` (exactly kRandomBytes bytes), e.g.
    // "k20250131-1a2b3c4d". Returns an empty string for a wrong random length.
    static QString generate(QDate utcDate, QByteArrayView random);
    // The same with today's UTC date and RAND_bytes; keyring.random_failed otherwise.
    static Result<QString> generate();
};

} // namespace veetbot
