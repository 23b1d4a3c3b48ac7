#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace veetbot {

// HMAC-SHA-256 under a random key of this service start: how the service keeps and compares
// the capabilities it hands out (lease references, sign-in capabilities) without keeping
// them. A restarted service holds another key, so nothing it issued before is honoured.
class KeyedHash
{
public:
    KeyedHash();

    QByteArray of(QByteArrayView data) const;
    // Constant time for digests of equal length.
    static bool equal(const QByteArray &a, const QByteArray &b);
    // A fresh capability: 32 random bytes as 43 base64url characters.
    static QString capability();

private:
    QByteArray m_key;
};

} // namespace veetbot
