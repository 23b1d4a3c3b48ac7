#include "Sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace veetbot::Sha256 {

QByteArray digest(QByteArrayView bytes)
{
    QByteArray out(EVP_MAX_MD_SIZE, Qt::Uninitialized);
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), size_t(bytes.size()),
                   reinterpret_cast<unsigned char *>(out.data()), &length, EVP_sha256(),
                   nullptr) != 1 ||
        length != 32)
        std::abort();
    out.truncate(int(length));
    return out;
}

QString hex(QByteArrayView bytes)
{
    return QString::fromLatin1(digest(bytes).toHex());
}

} // namespace veetbot::Sha256
