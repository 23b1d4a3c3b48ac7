#include "ModelEndpoint.h"

#include <QHostAddress>

namespace veetbot::ModelEndpoint {

Error urlRefused()
{
    return Error{QStringLiteral("model.url_refused"),
                 QStringLiteral("The model URL must be HTTPS, or plain HTTP to a loopback "
                                "address, with no credentials or fragment in it.")};
}

Result<QUrl> parse(const QString &text)
{
    QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty() || !url.userInfo().isEmpty() || url.hasFragment() ||
        text.size() > 2048)
        return urlRefused();
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("http")) {
        const QString host = url.host().toLower();
        const QHostAddress address(host);
        const bool loopback =
            host == QLatin1String("localhost") || (!address.isNull() && address.isLoopback());
        if (!loopback)
            return urlRefused();
    } else if (scheme != QLatin1String("https")) {
        return urlRefused();
    }
    QString path = url.path();
    if (!path.endsWith(QLatin1String("/chat/completions"))) {
        while (path.endsWith(u'/'))
            path.chop(1);
        url.setPath(path + QStringLiteral("/chat/completions"));
    }
    return url;
}

} // namespace veetbot::ModelEndpoint
