#include "ServiceCredential.h"

#include "domain/observation/BrowserObservation.h"
#include "storage/FileDescriptor.h"
#include "storage/PrivateDirectory.h"

#include <openssl/crypto.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

using Problem = ServiceCredential::Problem;

QString sentence(Problem problem)
{
    // "The profile service credential (service.credential in the data directory) <what>; remove
    // it and start the service again to make a new one."
    const auto replaceIt = [](QLatin1String what,
                              QLatin1String separator = QLatin1String("; ")) -> QString {
        return QLatin1String("The profile service credential (service.credential in the data "
                             "directory) ") +
               what + separator +
               QLatin1String("remove it and start the service again to make a new one.");
    };
    switch (problem) {
    case Problem::None:
    case Problem::Missing:
        break;
    case Problem::SymbolicLink:
        return replaceIt(QLatin1String("is a symbolic link"));
    case Problem::NotRegularFile:
        return replaceIt(QLatin1String("is not a regular file"));
    case Problem::OtherOwner:
        return replaceIt(QLatin1String("belongs to another user"));
    case Problem::NotMode0600:
        return replaceIt(QLatin1String("does not have mode 0600; others may read it"),
                         QLatin1String(": "));
    case Problem::Unreadable:
        return QStringLiteral("The profile service credential (service.credential in the data "
                              "directory) cannot be opened by this user.");
    case Problem::Malformed:
        return replaceIt(QLatin1String("is not 43 base64url characters"));
    }
    return QStringLiteral("The profile service credential is missing; the service makes it on "
                          "its first start.");
}

Error unavailable(Problem problem)
{
    return Error{QStringLiteral("service.credential_unavailable"), sentence(problem)};
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

Result<SecretBytes> readToken(const QByteArray &path, Problem &problem)
{
    // O_NONBLOCK: a FIFO put in its place is refused, not waited on.
    FileDescriptor fd(
        ::open(path.constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (!fd.isValid()) {
        problem = errno == ENOENT  ? Problem::Missing
                  : errno == ELOOP ? Problem::SymbolicLink
                                   : Problem::Unreadable;
        return unavailable(problem);
    }
    struct stat status = {};
    if (::fstat(fd.get(), &status) != 0)
        problem = Problem::Unreadable;
    else if (!S_ISREG(status.st_mode))
        problem = Problem::NotRegularFile;
    else if (status.st_uid != ::geteuid())
        problem = Problem::OtherOwner;
    else if ((status.st_mode & 07777) != 0600)
        problem = Problem::NotMode0600;
    else if (status.st_size != ServiceCredential::kTextLength)
        problem = Problem::Malformed;
    if (problem != Problem::None)
        return unavailable(problem);
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
    if (total != ServiceCredential::kTextLength || !isBase64Url(secret.bytes())) {
        problem = Problem::Malformed;
        return unavailable(problem);
    }
    return secret;
}

} // namespace

QString ServiceCredential::path(const QString &dataDirectory)
{
    return dataDirectory + QStringLiteral("/service.credential");
}

bool ServiceCredential::isUnsafe(Problem problem)
{
    return problem == Problem::SymbolicLink || problem == Problem::NotRegularFile ||
           problem == Problem::OtherOwner || problem == Problem::NotMode0600 ||
           problem == Problem::Unreadable;
}

Result<ServiceCredential> ServiceCredential::read(const QString &dataDirectory, Problem *problem)
{
    Problem found = Problem::None;
    const auto native = PrivateDirectory::nativePath(path(dataDirectory));
    Result<SecretBytes> token =
        native ? readToken(*native, found) : Result<SecretBytes>(unavailable(Problem::Unreadable));
    if (!native)
        found = Problem::Unreadable;
    if (problem)
        *problem = found;
    if (!token)
        return token.error();
    return ServiceCredential(std::move(token).value());
}

Result<ServiceCredential> ServiceCredential::readOrCreate(const QString &dataDirectory)
{
    const auto native = PrivateDirectory::nativePath(path(dataDirectory));
    if (!native)
        return unavailable(Problem::Unreadable);
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
            return unavailable(Problem::Unreadable);
        }
    } else if (errno != EEXIST) {
        return unavailable(errno == ELOOP ? Problem::SymbolicLink : Problem::Unreadable);
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
