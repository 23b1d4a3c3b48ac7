#include "KeyVersion.h"

#include "KeyringError.h"

#include <QDateTime>

#include <openssl/rand.h>

namespace veetbot {

namespace {

bool isLeadChar(char16_t c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9');
}

bool isTailChar(char16_t c)
{
    return isLeadChar(c) || c == u'_' || c == u'-';
}

} // namespace

bool KeyVersion::isValid(QStringView name)
{
    if (name.isEmpty() || name.size() > kMaxLength || !isLeadChar(name.front().unicode()))
        return false;
    for (QChar c : name) {
        if (!isTailChar(c.unicode()))
            return false;
    }
    return true;
}

bool KeyVersion::isValid(QByteArrayView name)
{
    if (name.isEmpty() || name.size() > kMaxLength || !isLeadChar(char16_t(uchar(name.front()))))
        return false;
    for (char c : name) {
        if (!isTailChar(char16_t(uchar(c))))
            return false;
    }
    return true;
}

QString KeyVersion::generate(QDate utcDate, QByteArrayView random)
{
    if (random.size() != kRandomBytes || !utcDate.isValid())
        return QString();
    return QStringLiteral("k") + utcDate.toString(QStringLiteral("yyyyMMdd")) + u'-' +
           QString::fromLatin1(random.toByteArray().toHex());
}

Result<QString> KeyVersion::generate()
{
    unsigned char random[kRandomBytes];
    if (RAND_bytes(random, int(sizeof random)) != 1)
        return keyringError(KeyringError::RandomFailed);
    const QString name =
        generate(QDateTime::currentDateTimeUtc().date(),
                 QByteArrayView(reinterpret_cast<const char *>(random), sizeof random));
    if (!isValid(name))
        return keyringError(KeyringError::RandomFailed);
    return name;
}

} // namespace veetbot
