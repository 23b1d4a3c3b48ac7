#include "KeyedHash.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>

namespace veetbot {

namespace {

QByteArray randomBytes(int count)
{
    QByteArray bytes(count, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(bytes.data()), int(bytes.size())) != 1)
        std::abort(); // a broken process, not an input condition
    return bytes;
}

} // namespace

KeyedHash::KeyedHash() : m_key(randomBytes(32)) {}

QByteArray KeyedHash::of(QByteArrayView data) const
{
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), m_key.constData(), int(m_key.size()),
              reinterpret_cast<const unsigned char *>(data.data()), size_t(data.size()), out,
              &length))
        std::abort();
    return QByteArray(reinterpret_cast<const char *>(out), int(length));
}

bool KeyedHash::equal(const QByteArray &a, const QByteArray &b)
{
    return a.size() == b.size() &&
           CRYPTO_memcmp(a.constData(), b.constData(), size_t(a.size())) == 0;
}

QString KeyedHash::capability()
{
    return QString::fromLatin1(
        randomBytes(32).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

} // namespace veetbot
