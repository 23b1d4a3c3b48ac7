#include "ServiceCredential.h"

#include "domain/BrowserObservation.h"
#include "storage/FileDescriptor.h"
#include "storage/PrivateDirectory.h"

#include <openssl/crypto.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

Error unavailable()
{
    return Error{QStringLiteral("service.credential_unavailable"),
                 QStringLiteral("The profile service credential is missing or not private to "
                                "this user; restart the service to create it.")};
}

bool isBase64Url(const QByteArray &text)
{
    for (const char c : text) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok)
            return false;
    }
    return true;
}

Result<SecretBytes> readToken(const QByteArray &path)
{
    FileDescriptor fd(::open(path.constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
    if (!fd.isValid())
        return unavailable();
    struct stat status = {};
    if (::fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode) ||
        !PrivateDirectory::isOwnerOnly(status) || status.st_size != ServiceCredential::kTextLength)
        return unavailable();
    QByteArray token(ServiceCredential::kTextLength, Qt::Uninitialized);
    qsizetype total = 0;
    while (total < token.size()) {
        const ssize_t n = ::read(fd.get(), token.data() + total, size_t(token.size() - total));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        total += n;
    }
    SecretBytes secret(std::move(token));
    if (total != ServiceCredential::kTextLength || !isBase64Url(secret.bytes()))
        return unavailable();
    return secret;
}

} // namespace

QString ServiceCredential::path(const QString &dataDirectory)
{
    return dataDirectory + QStringLiteral("/service.credential");
}

Result<ServiceCredential> ServiceCredential::read(const QString &dataDirectory)
{
    const auto native = PrivateDirectory::nativePath(path(dataDirectory));
    if (!native)
        return unavailable();
    Result<SecretBytes> token = readToken(*native);
    if (!token)
        return token.error();
    return ServiceCredential(std::move(token).value());
}

Result<ServiceCredential> ServiceCredential::readOrCreate(const QString &dataDirectory)
{
    const auto native = PrivateDirectory::nativePath(path(dataDirectory));
    if (!native)
        return unavailable();
    FileDescriptor fd(::open(native->constData(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                             0600));
    if (fd.isValid()) {
        // Made just now: write the token whole, then make it durable.
        SecretBytes token(randomToken(kBytes).toLatin1());
        if (token.size() != kTextLength ||
            ::write(fd.get(), token.data(), size_t(token.size())) != token.size() ||
            ::fchmod(fd.get(), 0600) != 0 || ::fsync(fd.get()) != 0) {
            ::unlink(native->constData());
            return unavailable();
        }
    } else if (errno != EEXIST) {
        return unavailable();
    }
    return read(dataDirectory);
}

bool ServiceCredential::matches(QByteArrayView presented) const
{
    // The length is not secret (it is fixed); the bytes are compared in constant time.
    if (presented.size() != m_token.size())
        return false;
    return CRYPTO_memcmp(presented.data(), m_token.data(), size_t(m_token.size())) == 0;
}

QByteArray ServiceCredential::bearer() const
{
    return QByteArrayLiteral("Bearer ") + m_token.bytes();
}

} // namespace veetbot
