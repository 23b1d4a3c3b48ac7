#include "CeremonyRecord.h"

namespace veetbot::ServiceCeremony {

QString stateName(State state)
{
    switch (state) {
    case State::Open:
        return QStringLiteral("open");
    case State::Verifying:
        return QStringLiteral("verifying");
    case State::Ready:
        return QStringLiteral("ready");
    case State::Failed:
        return QStringLiteral("failed");
    case State::Cancelled:
        return QStringLiteral("cancelled");
    case State::Expired:
        return QStringLiteral("expired");
    }
    return QString();
}

QString modeName(Mode mode)
{
    return mode == Mode::Device ? QStringLiteral("device") : QStringLiteral("remote");
}

std::optional<Mode> modeNamed(const QString &name)
{
    if (name == QLatin1String("remote"))
        return Mode::Remote;
    if (name == QLatin1String("device"))
        return Mode::Device;
    return std::nullopt;
}

} // namespace veetbot::ServiceCeremony
