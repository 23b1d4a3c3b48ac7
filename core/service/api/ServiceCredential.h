#pragma once

#include "domain/Result.h"
#include "domain/SecretBytes.h"

#include <QString>

namespace veetbot {

// The Bearer credential every orchestration program presents to the profile service: 256
// random bits (43 base64url characters) in `<data directory>/service.credential`, a regular
// file owned by this user with mode 0600, read without following a symbolic link. The
// service creates it on its first start; clients only read it. Never logged, never in an
// error's text.
class ServiceCredential
{
public:
    static constexpr int kBytes = 32;
    static constexpr int kTextLength = 43;

    // Why a credential file cannot be used; each has its own fixed sentence (never a path or a
    // byte of the file).
    enum class Problem
    {
        None,
        Missing,        // not there yet: the service makes it on its first start
        SymbolicLink,   // unsafe
        NotRegularFile, // unsafe
        OtherOwner,     // unsafe
        NotMode0600,    // unsafe
        Unreadable,     // unsafe: this user cannot open it
        Malformed,      // not 43 base64url characters (also while the service writes it)
    };
    // A file that is there and must not be trusted: reported as it is; waiting, or starting a
    // service, would not change it.
    static bool isUnsafe(Problem problem);

    static QString path(const QString &dataDirectory);
    // Reads the credential; service.credential_unavailable, with the problem's sentence, when
    // it is missing, unsafe (a link, not a regular file, another owner, a mode other than
    // 0600) or malformed. `problem`, when given, says which.
    static Result<ServiceCredential> read(const QString &dataDirectory, Problem *problem = nullptr);
    // Reads it, creating it first (exclusively, 0600) when there is none.
    static Result<ServiceCredential> readOrCreate(const QString &dataDirectory);

    // Constant-time comparison with a presented token.
    bool matches(QByteArrayView presented) const;
    // The Authorization header's value, for clients.
    QByteArray bearer() const;

private:
    explicit ServiceCredential(SecretBytes token) : m_token(std::move(token)) {}
    SecretBytes m_token;
};

} // namespace veetbot
