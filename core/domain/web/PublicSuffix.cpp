#include "PublicSuffix.h"

#include <libpsl.h>

namespace veetbot::PublicSuffix {

namespace {

const psl_ctx_t *context()
{
    // Loaded once (thread-safe static); the context lives as long as the process.
    static const psl_ctx_t *const loaded = [] {
        const psl_ctx_t *latest = psl_latest(nullptr);
        return latest ? latest : psl_builtin();
    }();
    return loaded;
}

} // namespace

bool isPublicSuffix(const QString &domain)
{
    const psl_ctx_t *psl = context();
    if (!psl)
        return true; // no list at all: treat every name as a suffix, keep nothing
    const QByteArray ascii = domain.toLatin1();
    return psl_is_public_suffix2(psl, ascii.constData(), PSL_TYPE_ANY) != 0;
}

QString registrableDomain(const QString &host)
{
    const psl_ctx_t *psl = context();
    if (!psl || host.isEmpty())
        return QString();
    const QByteArray ascii = host.toLatin1();
    const char *domain = psl_registrable_domain(psl, ascii.constData());
    return domain ? QString::fromLatin1(domain) : QString();
}

} // namespace veetbot::PublicSuffix
