#pragma once

#include "ports/Keyring.h"

#include <QMap>

namespace veetbot::test {

// A keyring held in memory for the vault tests: versions map to raw key bytes (any length,
// so tests can also hand out a wrong-sized key). No fallback: an absent version is an error.
class MemoryKeyring final : public Keyring
{
public:
    void setKey(const QString &version, const QByteArray &key) { m_keys.insert(version, key); }
    void removeKey(const QString &version) { m_keys.remove(version); }
    void setCurrent(const QString &version) { m_current = version; }

    Result<QString> currentVersion() const override
    {
        if (m_current.isEmpty())
            return Error{QStringLiteral("test.no_current"), QStringLiteral("No current key.")};
        return m_current;
    }
    Result<SecretBytes> key(const QString &version) const override
    {
        const auto it = m_keys.constFind(version);
        if (it == m_keys.constEnd())
            return Error{QStringLiteral("test.unknown_version"), QStringLiteral("No such key.")};
        return SecretBytes(QByteArray(it->constData(), it->size()));
    }
    QStringList versions() const override { return m_keys.keys(); }

    // 32 bytes derived from a seed byte, distinct per seed.
    static QByteArray keyBytes(char seed)
    {
        QByteArray key(32, seed);
        for (int i = 0; i < key.size(); ++i)
            key[i] = char(seed + i * 7);
        return key;
    }

private:
    QMap<QString, QByteArray> m_keys;
    QString m_current;
};

} // namespace veetbot::test
